package scribetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/state"
	"github.com/scribehq/scribe-go/webhook"
)

// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody.
const MaxResponseExcerpt = 1 << 10

// MaxEventBytes is the largest event the server sends, webhook.NewHandler's
// default limit; a larger one is recorded as a final failed attempt.
const MaxEventBytes = webhook.DefaultMaxBodyBytes

// MaxWebhookDelay is the longest wait between attempts, however scaled and
// jittered.
const MaxWebhookDelay = 7 * 24 * time.Hour

// DeliveryAttempt is one attempt to deliver an event to a webhook. Its JSON
// form is the admin API's (GET /_scribetest/deliveries), which adds the
// Duration in milliseconds as duration_ms.
type DeliveryAttempt struct {
	EventID    string            `json:"event_id"`    // the event's id, sent as webhook-id on every attempt
	EventType  webhook.EventType `json:"event_type"`  // such as webhook.EventTranscriptCreated
	WebhookID  int64             `json:"webhook_id"`  // the id of the webhook it was sent to
	URI        string            `json:"uri"`         // the webhook's URL, as registered
	Attempt    int               `json:"attempt"`     // the attempt's number, from 1
	Time       time.Time         `json:"time"`        // when it was signed, by the server's clock (webhook-timestamp)
	StatusCode int               `json:"status_code"` // the receiver's answer, 0 when there was none
	// ResponseBody is the start of the answer: at most MaxResponseExcerpt
	// bytes, credentials and the signing secret redacted, control
	// characters but newlines and tabs replaced by spaces.
	// webhook.NewHandler puts your function's (redacted) error there.
	ResponseBody string        `json:"response_body"`
	Error        string        `json:"error"`     // why the attempt failed; "" if it succeeded
	Duration     time.Duration `json:"-"`         // how long it took, by the wall clock
	Delivered    bool          `json:"delivered"` // a 2xx answer within the timeout
	Final        bool          `json:"final"`     // no attempt follows: delivered, refused or given up
	Permanent    bool          `json:"permanent"` // a webhook.StatusPermanentFailure (422): not retried
}

// String formats the attempt on one line, the receiver's answer included,
// as RequireDelivered prints it.
func (a DeliveryAttempt) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "attempt %d at %s: ", a.Attempt, a.Time.UTC().Format(time.RFC3339Nano))
	switch {
	case a.Delivered:
		fmt.Fprintf(&b, "delivered, %d %s", a.StatusCode, http.StatusText(a.StatusCode))
	case a.Error != "":
		b.WriteString(a.Error)
	default:
		fmt.Fprintf(&b, "%d %s", a.StatusCode, http.StatusText(a.StatusCode))
	}
	fmt.Fprintf(&b, " (%v)", a.Duration.Round(time.Microsecond))
	if a.ResponseBody != "" {
		fmt.Fprintf(&b, "; answer: %q", a.ResponseBody)
	}
	switch {
	case a.Permanent:
		b.WriteString("; failed permanently, not retried")
	case a.Final && !a.Delivered:
		b.WriteString("; given up")
	}
	return b.String()
}

// PendingDelivery is a delivery not settled yet: due, in flight, or waiting
// for its next attempt; after Close, one never to be attempted again. Its
// JSON form is the admin API's, where a zero NextAttempt is null.
type PendingDelivery struct {
	EventID        string            `json:"event_id"`         // the event's id (webhook-id)
	EventType      webhook.EventType `json:"event_type"`       // such as webhook.EventTranscriptCreated
	WebhookID      int64             `json:"webhook_id"`       // the id of the webhook
	URI            string            `json:"uri"`              // the webhook's URL, as registered
	Attempts       int               `json:"attempts"`         // attempts made so far
	LastStatusCode int               `json:"last_status_code"` // the last attempt's StatusCode
	LastError      string            `json:"last_error"`       // the last attempt's Error
	NextAttempt    time.Time         `json:"next_attempt"`     // by the server's clock; zero if due now, in flight or never
}

// Deliveries returns the attempts finished so far, oldest first (the last 10,000).
func (s *Server) Deliveries() []DeliveryAttempt { return s.deliveries.attempts() }

// PendingDeliveries returns the deliveries not settled, in the order emitted.
func (s *Server) PendingDeliveries() []PendingDelivery { return s.deliveries.pending() }

// WaitForDeliveries waits until every delivery is settled, or returns an
// error wrapping ctx.Err() or ErrClosed. On a FakeClock it advances the
// clock to each retry; on the system clock it waits in real time.
func (s *Server) WaitForDeliveries(ctx context.Context) error { return s.deliveries.wait(ctx) }

// ErrClosed is wrapped by WaitForDeliveries when the server closes first.
var ErrClosed = errors.New("scribetest: the server is closed")

// RequireTimeout bounds RequireDelivered's wait on the system clock.
const RequireTimeout = 30 * time.Second

// RequireDelivered fails t, listing every attempt, unless every delivery of
// the events named (all, if none) ended with a 2xx. It waits as
// WaitForDeliveries does, at most RequireTimeout on the system clock, and
// returns the events' attempts, oldest first.
func (s *Server) RequireDelivered(t testing.TB, eventIDs ...string) []DeliveryAttempt {
	t.Helper()
	failure, attempts := s.deliveries.require(eventIDs, RequireTimeout)
	if failure != "" {
		t.Fatalf("scribetest: RequireDelivered: %s", failure)
	}
	return attempts
}

// changedLocked returns a channel closed at the next change.
func (e *engine) changedLocked() <-chan struct{} {
	if e.changed == nil {
		e.changed = make(chan struct{})
	}
	return e.changed
}

// notifyLocked wakes whoever waits for a change of state.
func (e *engine) notifyLocked() {
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
}

// attempts returns the attempts made so far, oldest first.
func (e *engine) attempts() []DeliveryAttempt {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.record.All()
}

// pending returns the deliveries not settled, in publishing order.
func (e *engine) pending() []PendingDelivery {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.pendingLocked(nil)
}

// pendingLocked returns the deliveries want selects (all if nil) not
// settled, in publishing order.
func (e *engine) pendingLocked(want func(*delivery) bool) []PendingDelivery {
	var out []PendingDelivery
	for _, dl := range e.sortedLocked(want) {
		p := PendingDelivery{EventID: dl.id, EventType: dl.typ, WebhookID: dl.hook, URI: dl.uri,
			Attempts: dl.attempts, LastStatusCode: dl.lastStatus, LastError: dl.lastErr}
		if dl.timer != nil {
			p.NextAttempt = dl.due
		}
		out = append(out, p)
	}
	return out
}

// sortedLocked returns the pending deliveries want selects (all if nil), in order.
func (e *engine) sortedLocked(want func(*delivery) bool) []*delivery {
	dls := slices.SortedFunc(maps.Keys(e.unsettled), func(a, b *delivery) int { return cmp.Compare(a.seq, b.seq) })
	if want != nil {
		dls = slices.DeleteFunc(dls, func(dl *delivery) bool { return !want(dl) })
	}
	return dls
}

// wait waits until every delivery is settled, ctx ends or the engine closes.
func (e *engine) wait(ctx context.Context) error {
	n, cause := e.settled(ctx, nil)
	switch {
	case n == 0:
		return nil
	case errors.Is(cause, ErrClosed):
		return fmt.Errorf("scribetest: %s will not be delivered (see PendingDeliveries): %w", count(n), cause)
	}
	return fmt.Errorf("scribetest: %s still pending (see PendingDeliveries): %w", count(n), cause)
}

// settled waits until no delivery want selects is pending, or says how many are and
// why it ended; when nothing is due or in flight it moves a test's clock on.
func (e *engine) settled(ctx context.Context, want func(*delivery) bool) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		n := len(e.sortedLocked(want))
		switch {
		case n == 0:
			return 0, nil
		case e.closed:
			return n, ErrClosed
		case ctx.Err() != nil:
			return n, ctx.Err()
		}
		if e.advancer != nil && len(e.ready) == 0 && len(e.inflight) == 0 {
			if next, ok := e.nextDueLocked(); ok {
				// Advance runs the timer, which takes e.mu.
				e.mu.Unlock()
				e.advancer.Advance(max(next.Sub(e.clock.Now()), 0))
				e.mu.Lock()
				continue
			}
		}
		changed := e.changedLocked()
		e.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		case <-e.done:
		}
		e.mu.Lock()
	}
}

// nextDueLocked returns when the earliest timer of a pending delivery fires.
func (e *engine) nextDueLocked() (time.Time, bool) {
	var next time.Time
	found := false
	for dl := range e.unsettled {
		if dl.timer != nil && (!found || dl.due.Before(next)) {
			next, found = dl.due, true
		}
	}
	return next, found
}

// close aborts attempts in flight, waits for the senders and returns how many are left.
func (e *engine) close() int {
	e.mu.Lock()
	first := !e.closed
	if first {
		e.closed = true
		close(e.done)
		e.cancel()
		for dl := range e.unsettled {
			if dl.timer != nil && dl.timer.Stop() {
				dl.timer = nil
				e.wg.Done()
			}
		}
	}
	e.mu.Unlock()
	e.wg.Wait()
	if e.own != nil {
		e.own.CloseIdleConnections()
	}
	e.mu.Lock()
	n := len(e.unsettled)
	e.mu.Unlock()
	if first && n > 0 {
		e.logger.Warn("scribetest: webhook deliveries left undelivered at close (see PendingDeliveries)", "count", n)
	}
	return n
}

// shutdown waits, until ctx ends, for every delivery to settle, then closes.
func (e *engine) shutdown(ctx context.Context) error {
	_, cause := e.settled(ctx, nil)
	n := e.close()
	if n == 0 {
		return nil
	}
	if cause == nil {
		cause = ErrClosed // published after the wait, while closing
	}
	return fmt.Errorf("scribetest: Shutdown: %s undelivered (see PendingDeliveries): %w", count(n), cause)
}

// count says "1 webhook delivery" or "n webhook deliveries".
func count(n int) string {
	if n == 1 {
		return "1 webhook delivery"
	}
	return fmt.Sprintf("%d webhook deliveries", n)
}

// deliveryKey names one delivery: an event to a webhook.
type deliveryKey struct {
	event string
	hook  int64
}

// require waits for the deliveries of the events named (all, if none) to settle and
// returns their attempts and, if one did not end with a 2xx, the failure to report.
func (e *engine) require(eventIDs []string, timeout time.Duration) (failure string, attempts []DeliveryAttempt) {
	named := make(map[string]bool, len(eventIDs))
	for _, id := range eventIDs {
		named[id] = true
	}
	var want func(*delivery) bool
	if len(named) > 0 {
		want = func(dl *delivery) bool { return named[dl.id] }
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if e.advancer == nil {
		go e.stopBeforeLateRetry(ctx, cancel, want) // on the system clock, do not wait for a retry due after the bound
	}
	_, cause := e.settled(ctx, want)

	e.mu.Lock()
	all, pending, closed, now := e.record.All(), e.pendingLocked(want), e.closed, e.clock.Now()
	e.mu.Unlock()
	// The attempts and what is pending, by delivery, in the order the deliveries first show.
	byDelivery, waiting := map[deliveryKey][]DeliveryAttempt{}, map[deliveryKey]PendingDelivery{}
	var order []deliveryKey
	see := func(k deliveryKey) {
		if _, seen := byDelivery[k]; !seen {
			order = append(order, k)
			byDelivery[k] = nil
		}
	}
	for _, a := range all {
		if k := (deliveryKey{a.EventID, a.WebhookID}); len(named) == 0 || named[a.EventID] {
			attempts = append(attempts, a)
			see(k)
			byDelivery[k] = append(byDelivery[k], a)
		}
	}
	for _, p := range pending {
		k := deliveryKey{p.EventID, p.WebhookID}
		see(k)
		waiting[k] = p
	}
	var report strings.Builder
	for _, k := range order {
		describeFailure(&report, k, byDelivery[k], waiting, closed, now)
	}
	for _, id := range eventIDs {
		if !slices.ContainsFunc(order, func(k deliveryKey) bool { return k.event == id }) {
			fmt.Fprintf(&report, "\n  event %s: no delivery of it was emitted (no webhook of its plugin, an id from elsewhere, or more than %d attempts ago)", id, state.MaxRecords)
		}
	}
	if len(named) == 0 && len(order) == 0 {
		report.WriteString("\n  no webhook event was emitted: does the plugin have a webhook (CreateWebhook), and did something install it or create a transcript?")
	}
	if report.Len() == 0 {
		return "", attempts
	}
	why := ""
	if cause != nil {
		why = fmt.Sprintf(" (the wait ended: %v)", cause)
	}
	return "not every delivery got a 2xx answer" + why + ":" + report.String(), attempts
}

// describeFailure writes to b the delivery k, its attempts as and what it
// waits for, unless its last attempt delivered it.
func describeFailure(b *strings.Builder, k deliveryKey, as []DeliveryAttempt, waiting map[deliveryKey]PendingDelivery, closed bool, now time.Time) {
	if len(as) > 0 && as[len(as)-1].Delivered {
		return
	}
	p, isPending := waiting[k]
	typ, uri := p.EventType, p.URI
	if len(as) > 0 {
		typ, uri = as[0].EventType, as[0].URI
	}
	fmt.Fprintf(b, "\n  event %s (%s) to webhook %d (%s):", k.event, typ, k.hook, uri)
	for _, a := range as {
		fmt.Fprintf(b, "\n    %s", a)
	}
	switch {
	case isPending && !p.NextAttempt.IsZero():
		fmt.Fprintf(b, "\n    still pending: next attempt due at %s, %v from now by the server's clock",
			p.NextAttempt.UTC().Format(time.RFC3339Nano), p.NextAttempt.Sub(now).Round(time.Millisecond))
	case isPending && closed:
		b.WriteString("\n    never delivered: the server was closed")
	case isPending:
		b.WriteString("\n    still pending: an attempt is due or in flight")
	case len(as) == 0:
		b.WriteString("\n    no attempt recorded")
	}
}

// stopBeforeLateRetry cancels the wait once every delivery waits past ctx's deadline.
func (e *engine) stopBeforeLateRetry(ctx context.Context, cancel context.CancelFunc, want func(*delivery) bool) {
	deadline, _ := ctx.Deadline()
	for {
		e.mu.Lock()
		dls := e.sortedLocked(want)
		late := len(dls) > 0
		for _, dl := range dls {
			if dl.timer == nil || !dl.due.After(e.clock.Now().Add(time.Until(deadline))) {
				late = false
			}
		}
		if late {
			e.mu.Unlock()
			cancel()
			return
		}
		changed := e.changedLocked()
		e.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-e.done:
			return
		}
	}
}
