package scribetest

import (
	"context"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/delivery"
	"github.com/scribehq/scribe-go/webhook"
)

// Webhook delivery (docs/contract.md, "Events and webhooks"): every
// installation and transcript change emits its event to the webhooks of
// the plugin, delivered at least once on the retry schedule.

// The delivery defaults of docs/contract.md ("Events and webhooks").
const (
	// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody: the first
	// bytes of the receiver's answer kept with each attempt.
	MaxResponseExcerpt = delivery.MaxExcerpt
)

// MaxEventBytes is the largest event body the server delivers, the
// receiver's default limit (webhook.DefaultMaxBodyBytes, 4 MiB): whatever
// the server emits, a receiver built with webhook.NewHandler and its default
// options admits. An event beyond it (a transcript of several megabytes of
// text) is not sent: its delivery is recorded as one final, failed attempt
// that says so, and logged at Error.
const MaxEventBytes = webhook.DefaultMaxBodyBytes

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
	// shaped like a credential and the webhook's signing secret redacted
	// and control characters but newlines and tabs replaced by spaces.
	// webhook.NewHandler puts your function's (redacted) error there.
	ResponseBody string
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
func (a DeliveryAttempt) String() string { return delivery.Attempt(a).String() }

// PendingDelivery is a delivery not settled yet: due, in flight, or waiting
// for its next attempt; after Close or a Shutdown that ran out of time, one
// that will never be attempted again.
type PendingDelivery struct {
	// EventID is the event's id, the same on every attempt (webhook-id).
	EventID string
	// EventType is the event's type, such as
	// webhook.EventTranscriptCreated.
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
	// LastError is the last attempt's DeliveryAttempt.Error; "" before
	// the first attempt.
	LastError string
	// NextAttempt is when the next attempt is due, by the server's clock;
	// zero when it is due now, in flight, or will never come (after Close).
	NextAttempt time.Time
}

// Deliveries returns the webhook delivery attempts made so far, oldest
// first (the last 10,000 on a long-running server). An attempt is listed
// once it is finished.
func (s *Server) Deliveries() []DeliveryAttempt {
	all := s.deliveries.Attempts()
	out := make([]DeliveryAttempt, len(all))
	for i, a := range all {
		out[i] = DeliveryAttempt(a)
	}
	return out
}

// PendingDeliveries returns the deliveries that are not settled (neither
// delivered nor given up), in the order their events were emitted. After
// Close, or a Shutdown whose context ended first, they are the events that
// were not delivered.
func (s *Server) PendingDeliveries() []PendingDelivery {
	all := s.deliveries.Pending()
	out := make([]PendingDelivery, len(all))
	for i, p := range all {
		out[i] = PendingDelivery(p)
	}
	return out
}

// WaitForDeliveries waits until every delivery is settled: delivered,
// refused permanently, or given up after the last attempt of the schedule.
// It returns nil then, or, when ctx ends or the server is closed first, an
// error with the number of deliveries still pending (see PendingDeliveries)
// that wraps ctx.Err() or ErrClosed.
//
// On a FakeClock (WithClock) it moves the clock: whenever no attempt is due
// or in flight and deliveries wait for a retry, it advances the clock to the
// earliest retry, so the whole schedule, 27 hours by default, passes in
// milliseconds. On the system clock it waits for the retries in real time.
func (s *Server) WaitForDeliveries(ctx context.Context) error { return s.deliveries.Wait(ctx) }

// ErrClosed is wrapped by WaitForDeliveries when the server is closed while
// deliveries are pending.
var ErrClosed = delivery.ErrClosed

// RequireTimeout bounds how long RequireDelivered waits for deliveries on
// the system clock: a liveness bound that fails a test which would hang,
// not a measure of speed. On a FakeClock the wait moves the clock instead.
const RequireTimeout = 30 * time.Second

// RequireDelivered fails t unless every delivery of the events named by
// eventIDs (of every event emitted so far, when none is named) to every
// webhook ended with a 2xx answer. It first waits for them to settle, as
// WaitForDeliveries does: on a FakeClock it advances the clock through the
// retries, so a test needs no sleep and no clock of its own; on the system
// clock it waits at most RequireTimeout, and fails at once when the next
// retry is due after that. The failure lists, per delivery that did not get
// through, every attempt with its time, status, error and the start of the
// receiver's answer (where webhook.NewHandler puts your function's error),
// and whether it was given up, refused permanently or is still pending.
// It returns the attempts of those events, oldest first.
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
