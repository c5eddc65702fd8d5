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

// require waits for the deliveries of the events named (all, if none) to settle and
// returns their attempts and, if one did not end with a 2xx, the failure to report.
func (e *engine) require(eventIDs []string, timeout time.Duration) (failure string, attempts []DeliveryAttempt) {
	named := func(id string) bool { return len(eventIDs) == 0 || slices.Contains(eventIDs, id) }
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// On the system clock, do not wait for a retry due after the bound.
	_, cause := e.settled(ctx, func(dl *delivery) bool { return named(dl.EventID) }, e.advancer == nil)

	e.mu.Lock()
	events, _ := e.eventsLocked(0, maxRecords)
	closed, now := e.closed, e.clock.Now()
	e.mu.Unlock()
	var report strings.Builder
	seen := map[string]bool{} // the events named that were delivered somewhere
	for _, ev := range slices.Backward(events) {
		if !named(ev.ID) {
			continue
		}
		for _, d := range ev.Deliveries {
			seen[ev.ID] = true
			attempts = append(attempts, d.Attempts...)
			describeFailure(&report, ev, d, closed, now)
		}
	}
	slices.SortStableFunc(attempts, func(a, b DeliveryAttempt) int { return a.Time.Compare(b.Time) })
	for _, id := range eventIDs {
		if !seen[id] {
			fmt.Fprintf(&report, "\n  event %s: no delivery of it was emitted (no webhook of its plugin, an id from elsewhere, or more than %d events ago)", id, maxRecords)
		}
	}
	if len(eventIDs) == 0 && len(seen) == 0 {
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

// describeFailure writes to b the delivery d of ev, its attempts and what
// it waits for, unless its last attempt delivered it.
func describeFailure(b *strings.Builder, ev EmittedEvent, d EventDelivery, closed bool, now time.Time) {
	as := d.Attempts
	if len(as) > 0 && as[len(as)-1].Delivered {
		return
	}
	fmt.Fprintf(b, "\n  event %s (%s) to webhook %d (%s):", ev.ID, ev.Type, d.WebhookID, d.URI)
	for _, a := range as {
		fmt.Fprintf(b, "\n    %s", a)
	}
	switch {
	case d.Pending && !d.NextAttempt.IsZero():
		fmt.Fprintf(b, "\n    still pending: next attempt due at %s, %v from now by the server's clock",
			d.NextAttempt.UTC().Format(time.RFC3339Nano), d.NextAttempt.Sub(now).Round(time.Millisecond))
	case d.Pending && closed:
		b.WriteString("\n    never delivered: the server was closed")
	case d.Pending:
		b.WriteString("\n    still pending: an attempt is due or in flight")
	case len(as) == 0:
		b.WriteString("\n    no attempt recorded")
	}
}
