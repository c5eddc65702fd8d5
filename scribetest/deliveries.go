package scribetest

import (
	"context"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/delivery"
	"github.com/scribehq/scribe-go/webhook"
)

// Webhook delivery (docs/contract.md, "Events and webhooks"; the guide is
// docs/testing.md): every installation and transcript change emits its
// event to the plugin's webhooks, delivered at least once on the schedule.

// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody.
const MaxResponseExcerpt = delivery.MaxExcerpt

// MaxEventBytes is the largest event body the server delivers: the default
// limit of webhook.NewHandler (webhook.DefaultMaxBodyBytes). A larger event
// is not sent; its delivery is recorded as one final failed attempt and
// logged at Error.
const MaxEventBytes = webhook.DefaultMaxBodyBytes

// DeliveryAttempt is one attempt to deliver an event to a webhook, as
// Server.Deliveries records it.
type DeliveryAttempt struct {
	EventID   string            // the event's id, sent as webhook-id on every attempt
	EventType webhook.EventType // such as webhook.EventTranscriptCreated
	WebhookID int64
	URI       string    // the webhook's URL, as registered
	Attempt   int       // the attempt's number, from 1
	Time      time.Time // when it was signed, by the server's clock (webhook-timestamp)
	// StatusCode is the receiver's answer, 0 when there was none.
	StatusCode int
	// ResponseBody is the start of the answer: at most MaxResponseExcerpt
	// bytes, credentials and the signing secret redacted, control
	// characters but newlines and tabs replaced by spaces.
	// webhook.NewHandler puts your function's (redacted) error there.
	ResponseBody string
	Error        string        // why the attempt failed; "" if it succeeded
	Duration     time.Duration // how long it took, by the wall clock
	Delivered    bool          // a 2xx answer within the timeout
	// Final reports that no attempt follows: delivered, refused
	// permanently, or given up at the end of the schedule.
	Final bool
	// Permanent reports a webhook.StatusPermanentFailure (422) answer:
	// failed for good, not retried (Final is set too).
	Permanent bool
}

// String formats the attempt on one line, as RequireDelivered prints it.
func (a DeliveryAttempt) String() string { return delivery.Attempt(a).String() }

// PendingDelivery is a delivery not settled yet: due, in flight, or waiting
// for its next attempt; after Close, one never to be attempted again.
type PendingDelivery struct {
	EventID        string            // the event's id (webhook-id)
	EventType      webhook.EventType // such as webhook.EventTranscriptCreated
	WebhookID      int64
	URI            string    // the webhook's URL, as registered
	Attempts       int       // attempts made so far
	LastStatusCode int       // the last attempt's StatusCode
	LastError      string    // the last attempt's Error
	NextAttempt    time.Time // by the server's clock; zero if due now, in flight or never
}

// Deliveries returns the delivery attempts finished so far, oldest first
// (the last 10,000).
func (s *Server) Deliveries() []DeliveryAttempt {
	all := s.deliveries.Attempts()
	out := make([]DeliveryAttempt, len(all))
	for i, a := range all {
		out[i] = DeliveryAttempt(a)
	}
	return out
}

// PendingDeliveries returns the deliveries neither delivered nor given up,
// in the order their events were emitted.
func (s *Server) PendingDeliveries() []PendingDelivery {
	all := s.deliveries.Pending()
	out := make([]PendingDelivery, len(all))
	for i, p := range all {
		out[i] = PendingDelivery(p)
	}
	return out
}

// WaitForDeliveries waits until every delivery is settled (delivered,
// refused permanently or given up) and returns nil, or an error with the
// number still pending that wraps ctx.Err() or ErrClosed. On a FakeClock
// it advances the clock to each retry, so the 27-hour schedule passes in
// milliseconds; on the system clock it waits in real time.
func (s *Server) WaitForDeliveries(ctx context.Context) error { return s.deliveries.Wait(ctx) }

// ErrClosed is wrapped by WaitForDeliveries when the server is closed while
// deliveries are pending.
var ErrClosed = delivery.ErrClosed

// RequireTimeout bounds how long RequireDelivered waits on the system clock:
// a liveness bound, not a measure of speed.
const RequireTimeout = 30 * time.Second

// RequireDelivered fails t unless every delivery of the events named (of
// every event, when none is) ended with a 2xx answer. It waits for them as
// WaitForDeliveries does, at most RequireTimeout on the system clock, and
// fails at once when the next retry is due later. The failure lists every
// attempt of each delivery that did not get through, with the start of the
// receiver's answer. It returns the attempts of those events, oldest first.
func (s *Server) RequireDelivered(t testing.TB, eventIDs ...string) []DeliveryAttempt {
	t.Helper()
	failure, attempts := s.deliveries.Require(eventIDs, RequireTimeout)
	if failure != "" {
		t.Fatalf("scribetest: RequireDelivered: %s", failure)
	}
	out := make([]DeliveryAttempt, len(attempts))
	for i, a := range attempts {
		out[i] = DeliveryAttempt(a)
	}
	return out
}
