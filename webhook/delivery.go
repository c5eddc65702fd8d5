package webhook

import (
	"context"
	"errors"
	"net/http"
)

// Outcome is how the handler of NewHandler ended one delivery, as a
// DeliveryHook learns it. The values are few and fixed, so they can label
// metrics.
type Outcome string

// The outcomes of a delivery.
const (
	// OutcomeProcessed: your function returned nil; the answer is 200.
	OutcomeProcessed Outcome = "processed"
	// OutcomeDuplicate: the id was processed before; the answer is 200 and
	// your function did not run.
	OutcomeDuplicate Outcome = "duplicate"
	// OutcomeInFlight: another delivery of the id is being processed; the
	// answer is 409 with Retry-After.
	OutcomeInFlight Outcome = "in_flight"
	// OutcomeRefused: the request failed verification or decoding (see
	// Delivery.Reason); the answer is 4xx and your function did not run.
	OutcomeRefused Outcome = "refused"
	// OutcomeFailed: your function failed or panicked, or the DedupeStore
	// failed (see Delivery.Reason); the answer is 500 or 503, and the
	// service retries.
	OutcomeFailed Outcome = "failed"
	// OutcomePermanent: your function failed with an error made by
	// Permanent; the answer is 422, and the service does not retry.
	OutcomePermanent Outcome = "permanent"
)

// The reasons of a refused or failed delivery (Delivery.Reason).
const (
	// ReasonSignature: no signature matched (401).
	ReasonSignature = "signature"
	// ReasonTimestamp: the timestamp is outside the tolerance (401).
	ReasonTimestamp = "timestamp"
	// ReasonMalformed: not a POST, a body too large or unreadable, a
	// header missing or malformed, a body that is not an event, or an
	// event whose id is not the webhook-id (4xx).
	ReasonMalformed = "malformed"
	// ReasonHandler: your function returned an error.
	ReasonHandler = "handler"
	// ReasonPanic: your function panicked.
	ReasonPanic = "panic"
	// ReasonStore: the DedupeStore failed (503).
	ReasonStore = "store"
)

// Delivery is what a DeliveryHook learns of one request once the handler
// has answered it. It holds no secret, signature or body.
type Delivery struct {
	// ID is the webhook-id: the verified event's id, or the header as sent
	// (unverified, maybe empty) when the delivery was refused before the
	// event was decoded.
	ID string
	// Type is the event's type, once the event was verified and decoded;
	// "" before.
	Type EventType
	// PluginInstallationUUID is the installation the event concerns, once
	// the event was verified and decoded; "" before.
	PluginInstallationUUID string
	// Outcome is how the delivery ended.
	Outcome Outcome
	// Reason says why a delivery was refused or failed (ReasonSignature,
	// ...); "" for the other outcomes.
	Reason string
	// Status is the HTTP status the handler answered.
	Status int
}

// refused sets d to a refusal with the given status and reason.
func (d *Delivery) refused(status int, reason string) {
	d.Outcome, d.Reason, d.Status = OutcomeRefused, reason, status
}

// A DeliveryHook observes each request the handler of NewHandler receives,
// for tracing and metrics (package otelscribe has one). It is called when a
// request arrives, before anything is read, with the request. The context it
// returns is the one the handler goes on with: your function is called with
// it (so the calls your function makes to the service are children of a span
// the hook starts), and the DedupeStore and the handler's log records are
// given it. It must return the request's context or one derived from it;
// nil keeps it.
//
// The function it returns, if not nil, is called once, after the answer has
// been written, with how the delivery ended. A hook observes: it cannot
// change the answer.
type DeliveryHook func(ctx context.Context, r *http.Request) (context.Context, func(Delivery))

// WithDeliveryHook adds hooks called around every request the handler
// receives (see DeliveryHook). They start in the order given, each with the
// context the one before returned; their end functions run in the reverse
// order. A nil hook is an error.
func WithDeliveryHook(hooks ...DeliveryHook) HandlerOption {
	return HandlerOption{func(h *handler) error {
		for _, hook := range hooks {
			if hook == nil {
				return errors.New("webhook: WithDeliveryHook: a hook is nil")
			}
		}
		h.hooks = append(h.hooks, hooks...)
		return nil
	}}
}

// refusalReason names why verification refused a delivery.
func refusalReason(err error) string {
	switch {
	case errors.Is(err, ErrNoMatchingSignature):
		return ReasonSignature
	case errors.Is(err, ErrTimestampTooOld), errors.Is(err, ErrTimestampTooNew):
		return ReasonTimestamp
	default:
		return ReasonMalformed
	}
}
