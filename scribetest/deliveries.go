package scribetest

import (
	"context"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/delivery"
	"github.com/scribehq/scribe-go/webhook"
)

// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody.
const MaxResponseExcerpt = delivery.MaxExcerpt

// MaxEventBytes is the largest event the server sends, webhook.NewHandler's
// default limit; a larger one is recorded as a final failed attempt.
const MaxEventBytes = webhook.DefaultMaxBodyBytes

// DeliveryAttempt is one attempt to deliver an event to a webhook.
type DeliveryAttempt struct {
	EventID    string            // the event's id, sent as webhook-id on every attempt
	EventType  webhook.EventType // such as webhook.EventTranscriptCreated
	WebhookID  int64             // the id of the webhook it was sent to
	URI        string            // the webhook's URL, as registered
	Attempt    int               // the attempt's number, from 1
	Time       time.Time         // when it was signed, by the server's clock (webhook-timestamp)
	StatusCode int               // the receiver's answer, 0 when there was none
	// ResponseBody is the start of the answer: at most MaxResponseExcerpt
	// bytes, credentials and the signing secret redacted, control
	// characters but newlines and tabs replaced by spaces.
	// webhook.NewHandler puts your function's (redacted) error there.
	ResponseBody string
	Error        string        // why the attempt failed; "" if it succeeded
	Duration     time.Duration // how long it took, by the wall clock
	Delivered    bool          // a 2xx answer within the timeout
	Final        bool          // no attempt follows: delivered, refused or given up
	Permanent    bool          // a webhook.StatusPermanentFailure (422): not retried
}

// String formats the attempt on one line, as RequireDelivered prints it.
func (a DeliveryAttempt) String() string { return delivery.Attempt(a).String() }

// PendingDelivery is a delivery not settled yet: due, in flight, or waiting
// for its next attempt; after Close, one never to be attempted again.
type PendingDelivery struct {
	EventID        string            // the event's id (webhook-id)
	EventType      webhook.EventType // such as webhook.EventTranscriptCreated
	WebhookID      int64             // the id of the webhook
	URI            string            // the webhook's URL, as registered
	Attempts       int               // attempts made so far
	LastStatusCode int               // the last attempt's StatusCode
	LastError      string            // the last attempt's Error
	NextAttempt    time.Time         // by the server's clock; zero if due now, in flight or never
}

// Deliveries returns the attempts finished so far, oldest first (the last 10,000).
func (s *Server) Deliveries() []DeliveryAttempt {
	all := s.deliveries.Attempts()
	out := make([]DeliveryAttempt, len(all))
	for i, a := range all {
		out[i] = DeliveryAttempt(a)
	}
	return out
}

// PendingDeliveries returns the deliveries not settled, in the order emitted.
func (s *Server) PendingDeliveries() []PendingDelivery {
	all := s.deliveries.Pending()
	out := make([]PendingDelivery, len(all))
	for i, p := range all {
		out[i] = PendingDelivery(p)
	}
	return out
}

// WaitForDeliveries waits until every delivery is settled, or returns an
// error wrapping ctx.Err() or ErrClosed. On a FakeClock it advances the
// clock to each retry; on the system clock it waits in real time.
func (s *Server) WaitForDeliveries(ctx context.Context) error { return s.deliveries.Wait(ctx) }

// ErrClosed is wrapped by WaitForDeliveries when the server closes first.
var ErrClosed = delivery.ErrClosed

// RequireTimeout bounds RequireDelivered's wait on the system clock.
const RequireTimeout = 30 * time.Second

// RequireDelivered fails t, listing every attempt, unless every delivery of
// the events named (all, if none) ended with a 2xx. It waits as
// WaitForDeliveries does, at most RequireTimeout on the system clock, and
// returns the events' attempts, oldest first.
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
