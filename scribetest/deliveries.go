package scribetest

import (
	"context"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/delivery"
)

// MaxResponseExcerpt bounds DeliveryAttempt.ResponseBody.
const MaxResponseExcerpt = delivery.MaxExcerpt

// MaxEventBytes is the largest event the server sends, webhook.NewHandler's
// default limit; a larger one is recorded as a final failed attempt.
const MaxEventBytes = delivery.MaxEventBytes

// DeliveryAttempt is one attempt to deliver an event to a webhook: the
// event's id and type, the webhook's id and URI, the attempt's number (from
// 1), when it was signed by the server's clock, the receiver's status code
// (0 when none), the start of its answer (ResponseBody: at most
// MaxResponseExcerpt bytes, credentials and the signing secret redacted,
// where webhook.NewHandler puts your function's redacted error), why it
// failed (Error), how long it took, and whether it Delivered (a 2xx within
// the timeout), is Final (no attempt follows) or Permanent (a 422, not
// retried). Its String method formats it on one line, as RequireDelivered
// prints it.
type DeliveryAttempt = delivery.Attempt

// PendingDelivery is a delivery not settled yet: due, in flight, or waiting
// for its next attempt (NextAttempt, by the server's clock; zero if due now,
// in flight or never); after Close, one never to be attempted again.
type PendingDelivery = delivery.Pending

// Deliveries returns the attempts finished so far, oldest first: the last 10,000.
func (s *Server) Deliveries() []DeliveryAttempt { return s.deliveries.Attempts() }

// PendingDeliveries returns the deliveries not settled, in the order emitted.
func (s *Server) PendingDeliveries() []PendingDelivery { return s.deliveries.Pending() }

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
	return attempts
}
