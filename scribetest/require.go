package scribetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// RequireTimeout bounds how long RequireDelivered waits for deliveries on the
// system clock: a liveness bound that fails a test which would hang, not a
// measure of speed. On a FakeClock the wait moves the clock instead.
const RequireTimeout = 30 * time.Second

// RequireDelivered fails t unless every delivery of the events named by
// eventIDs (of every event emitted so far, when none is named) to every
// webhook ended with a 2xx answer. It first waits for them to settle, as
// WaitForDeliveries does: on a FakeClock it advances the clock through the
// retries, so a test needs no sleep and no clock of its own; on the system
// clock it waits at most RequireTimeout, and fails at once when the next retry
// is due after that. The failure lists, per delivery that did not get through,
// every attempt with its time, status, error and the start of the receiver's
// answer (where webhook.NewHandler puts your function's error), and whether it
// was given up, refused permanently or is still pending. It returns the
// attempts of those events, oldest first.
func (s *Server) RequireDelivered(t testing.TB, eventIDs ...string) []DeliveryAttempt {
	t.Helper()
	failure, attempts := s.deliveries.require(eventIDs, RequireTimeout)
	if failure != "" {
		t.Fatalf("scribetest: RequireDelivered: %s", failure)
	}
	return attempts
}

// deliveryKey names one delivery: an event to a webhook.
type deliveryKey struct {
	event string
	hook  int64
}

// require waits for the deliveries of the events named (all, if none) to settle and
// returns their attempts and, if one did not end with a 2xx, the failure to report.
func (e *engine) require(eventIDs []string, timeout time.Duration) (failure string, attempts []DeliveryAttempt) {
	named := func(id string) bool { return len(eventIDs) == 0 || slices.Contains(eventIDs, id) }
	want := func(dl *delivery) bool { return named(dl.id) }
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// On the system clock, do not wait for a retry due after the bound.
	_, cause := e.settled(ctx, want, e.advancer == nil)

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
		if k := (deliveryKey{a.EventID, a.WebhookID}); named(a.EventID) {
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
			fmt.Fprintf(&report, "\n  event %s: no delivery of it was emitted (no webhook of its plugin, an id from elsewhere, or more than %d attempts ago)", id, maxRecords)
		}
	}
	if len(eventIDs) == 0 && len(order) == 0 {
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
