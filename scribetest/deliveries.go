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
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody.
const MaxResponseExcerpt = 1 << 10

// MaxResponseHeaders bounds DeliveryAttempt.ResponseHeaders.
const MaxResponseHeaders = 32

// MaxEventBytes is the largest event body the server delivers, the receiver's
// default limit (webhook.DefaultMaxBodyBytes, 4 MiB): whatever the server
// emits, a receiver built with webhook.NewHandler and its default options
// admits. An event beyond it (a transcript of several megabytes of text) is
// not sent: its delivery is recorded as one final, failed attempt that says
// so, and logged at Error.
const MaxEventBytes = webhook.DefaultMaxBodyBytes

// MaxWebhookDelay is the longest wait between two delivery attempts, after
// WithWebhookScheduleScale and jitter.
const MaxWebhookDelay = 7 * 24 * time.Hour

// DeliveryAttempt is one attempt to deliver an event to a webhook, as
// Server.Deliveries records it.
type DeliveryAttempt struct {
	// EventID is the event's id, also sent as webhook-id: the same on every
	// attempt of the event, to every webhook.
	EventID string
	// EventType is the event's type, such as webhook.EventTranscriptCreated.
	EventType webhook.EventType
	// WebhookID is the id of the webhook the attempt was sent to.
	WebhookID int64
	// URI is the webhook's URL the attempt was POSTed to, as registered.
	URI string
	// Attempt counts the attempts of this delivery, from 1.
	Attempt int
	// Time is when the attempt was signed, by the server's clock: its
	// webhook-timestamp.
	Time time.Time
	// StatusCode is the receiver's answer, 0 when there was none (refused
	// connection, timeout).
	StatusCode int
	// ResponseBody is the start of the receiver's answer, at most
	// MaxResponseExcerpt bytes (cut at a character, "…" added), with text
	// shaped like a credential and the webhook's signing secret redacted and
	// control characters but newlines and tabs replaced by spaces.
	// webhook.NewHandler puts your function's (redacted) error there.
	ResponseBody string
	// RequestHeaders are the headers the attempt was sent with: webhook-id,
	// webhook-timestamp, webhook-signature, Content-Type and User-Agent; nil
	// when nothing was sent.
	RequestHeaders http.Header
	// ResponseHeaders are the headers of the receiver's answer, nil without
	// one: at most MaxResponseHeaders names, the first in sorted order, each
	// with its first 4 values, redacted and cut to 256 bytes ("…" added) as an error's
	// field is (control characters escaped), and 2 KiB of names and values in all.
	ResponseHeaders http.Header
	// Error says why the attempt failed, "" when it succeeded.
	Error string
	// Duration is how long the attempt took, by the wall clock.
	Duration time.Duration
	// Delivered reports a 2xx answer within the timeout.
	Delivered bool
	// Final reports that no attempt follows: the event was delivered, the
	// receiver refused it permanently, or the schedule is exhausted and the
	// delivery given up.
	Final bool
	// Permanent reports that the receiver answered
	// webhook.StatusPermanentFailure (422): the delivery failed for good and
	// is not retried (Final is set too).
	Permanent bool
}

// String formats the attempt on one line, as RequireDelivered prints it:
// number, time, status or error, duration, and the receiver's answer.
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
// for its next attempt; after Close or a Shutdown that ran out of time, one
// that will never be attempted again.
type PendingDelivery struct {
	// EventID is the event's id, the same on every attempt (webhook-id).
	EventID string
	// EventType is the event's type, such as webhook.EventTranscriptCreated.
	EventType webhook.EventType
	// WebhookID is the id of the webhook the event is being delivered to.
	WebhookID int64
	// URI is that webhook's URL, as registered.
	URI string
	// Attempts is how many attempts were made so far.
	Attempts int
	// LastStatusCode is the last attempt's DeliveryAttempt.StatusCode; 0
	// before the first attempt or when the receiver did not answer.
	LastStatusCode int
	// LastError is the last attempt's DeliveryAttempt.Error; "" before the
	// first attempt.
	LastError string
	// NextAttempt is when the next attempt is due, by the server's clock; zero
	// when it is due now, in flight, or will never come (after Close).
	NextAttempt time.Time
}

// Deliveries returns the webhook delivery attempts made so far, oldest first
// (the last 10,000 on a long-running server). An attempt is listed once it is
// finished.
func (s *Server) Deliveries() []DeliveryAttempt { return s.deliveries.record.All() }

// PendingDeliveries returns the deliveries that are not settled (neither
// delivered nor given up), in the order their events were emitted. After
// Close, or a Shutdown whose context ended first, they are the events that
// were not delivered.
func (s *Server) PendingDeliveries() []PendingDelivery { return s.deliveries.pending() }

// Resend sends the event eventID again to each webhook it was delivered to,
// as the dashboards of Svix and Stripe do: the same webhook-id and body, with
// a new webhook-timestamp and signature. Each is one more attempt of its
// delivery, recorded in Deliveries with the next attempt number. A delivery
// still pending (waiting for a retry) makes its next attempt now, and is
// retried on the schedule if that fails; a settled one (delivered, given up
// or refused permanently) gets one more attempt, which is not retried. A
// delivery whose attempt is due or in flight makes that one only.
//
// The server keeps the last 10,000 events it emitted for this. An id it does
// not keep gives an error wrapping ErrNotFound; an event that went to no
// webhook, one wrapping ErrConflict; after Close, ErrClosed.
func (s *Server) Resend(eventID string) error { return s.deliveries.resend(eventID) }

// WaitForDeliveries waits until every delivery is settled: delivered, refused
// permanently, or given up after the last attempt of the schedule. It returns
// nil then, or, when ctx ends or the server is closed first, an error with the
// number of deliveries still pending (see PendingDeliveries) that wraps
// ctx.Err() or ErrClosed.
//
// On a FakeClock (WithClock) it moves the clock: whenever no attempt is due or
// in flight and deliveries wait for a retry, it advances the clock to the
// earliest retry, so the whole schedule, 27 hours by default, passes in
// milliseconds. On the system clock it waits for the retries in real time.
func (s *Server) WaitForDeliveries(ctx context.Context) error { return s.deliveries.wait(ctx) }

// ErrClosed is wrapped by WaitForDeliveries when the server is closed while
// deliveries are pending.
var ErrClosed = errors.New("scribetest: the server is closed")

// notifyLocked wakes whoever waits for a change of state.
func (e *engine) notifyLocked() {
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
}

// pending returns the deliveries not settled, in publishing order.
func (e *engine) pending() []PendingDelivery {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []PendingDelivery
	for _, dl := range slices.SortedFunc(maps.Keys(e.unsettled), func(a, b *delivery) int { return cmp.Compare(a.seq, b.seq) }) {
		out = append(out, dl.PendingDelivery)
	}
	return out
}

// wait waits until every delivery is settled, ctx ends or the engine closes.
func (e *engine) wait(ctx context.Context) error {
	n, cause := e.settled(ctx, nil, false)
	switch {
	case n == 0:
		return nil
	case errors.Is(cause, ErrClosed):
		return fmt.Errorf("scribetest: %s will not be delivered (see PendingDeliveries): %w", count(n), cause)
	}
	return fmt.Errorf("scribetest: %s still pending (see PendingDeliveries): %w", count(n), cause)
}

// settled waits until no delivery want selects is pending, or says how many are and
// why it ended; when nothing is due or in flight it moves a test's clock on. With
// stopLate it also ends once every one waits for a retry due after ctx's deadline.
func (e *engine) settled(ctx context.Context, want func(*delivery) bool, stopLate bool) (int, error) {
	deadline, _ := ctx.Deadline()
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		dls := slices.Collect(maps.Keys(e.unsettled)) // the pending ones want selects (all if nil), in no order
		if want != nil {
			dls = slices.DeleteFunc(dls, func(dl *delivery) bool { return !want(dl) })
		}
		switch {
		case len(dls) == 0:
			return 0, nil
		case e.closed:
			return len(dls), ErrClosed
		case ctx.Err() != nil:
			return len(dls), ctx.Err()
		case stopLate && e.lateLocked(dls, deadline):
			return len(dls), errors.New("the next attempt is due after the wait's deadline")
		}
		if e.advancer != nil && len(e.ready) == 0 && len(e.inflight) == 0 {
			if next := e.nextDueLocked(); !next.IsZero() {
				// Advance runs the timer, which takes e.mu.
				e.mu.Unlock()
				e.advancer.Advance(max(next.Sub(e.clock.Now()), 0))
				e.mu.Lock()
				continue
			}
		}
		if e.changed == nil { // closed at the next change
			e.changed = make(chan struct{})
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		case <-e.ctx.Done():
		}
		e.mu.Lock()
	}
}

// lateLocked reports whether every one of dls waits for a retry due after
// deadline, a time of the wall clock.
func (e *engine) lateLocked(dls []*delivery, deadline time.Time) bool {
	bound := e.clock.Now().Add(time.Until(deadline)) // the deadline by the server's clock
	return !slices.ContainsFunc(dls, func(dl *delivery) bool { return !dl.NextAttempt.After(bound) })
}

// nextDueLocked returns when the earliest timer of a pending delivery
// fires, or the zero time if none waits for one.
func (e *engine) nextDueLocked() (next time.Time) {
	for dl := range e.unsettled {
		if dl.timer != nil && (next.IsZero() || dl.NextAttempt.Before(next)) {
			next = dl.NextAttempt
		}
	}
	return next
}

// close aborts attempts in flight, waits for the senders, lets the state
// directory go and returns how many deliveries are left.
func (e *engine) close() int {
	e.mu.Lock()
	first := !e.closed // closing again changes nothing: no timer is set once closed
	e.closed = true
	e.cancel()
	e.stopTimersLocked()
	e.mu.Unlock()
	e.wg.Wait()
	if e.own != nil {
		e.own.CloseIdleConnections()
	}
	if e.db != nil { // the state directory is let go once delivery has stopped
		_ = e.db.Close()
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
	_, cause := e.settled(ctx, nil, false)
	n := e.close()
	if n == 0 {
		return nil
	}
	// Without a cause, the deliveries were published after the wait, while closing.
	return fmt.Errorf("scribetest: Shutdown: %s undelivered (see PendingDeliveries): %w", count(n), cmp.Or(cause, ErrClosed))
}

// count says "1 webhook delivery" or "n webhook deliveries".
func count(n int) string {
	if n == 1 {
		return "1 webhook delivery"
	}
	return fmt.Sprintf("%d webhook deliveries", n)
}
