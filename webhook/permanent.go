package webhook

import (
	"errors"
	"net/http"
)

// StatusPermanentFailure is the status NewHandler answers when your function
// returns an error made with Permanent: 422 Unprocessable Content. The
// service treats it as final for that event: it makes no further attempt
// and records the delivery as failed permanently. Every other non-2xx answer
// is retried on the schedule (see docs/webhooks.md).
const StatusPermanentFailure = http.StatusUnprocessableEntity

// Permanent marks err as a failure that no retry can fix, such as an event
// about an installation your backend refuses to serve, or data it can never
// accept: return Permanent(err) from the function given to NewHandler and
// the handler answers StatusPermanentFailure (422), so the service stops
// delivering the event instead of retrying it for 27 hours. The event's id
// is released, not marked processed, so a delivery sent again by hand runs
// your function again.
//
// Permanent(nil) returns nil. errors.Is and errors.As see through the
// result to err; IsPermanent reports whether an error carries the mark.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// PermanentError is the error Permanent returns.
type PermanentError struct {
	// Err is the failure that no retry can fix.
	Err error
}

// Error returns "permanent failure: " followed by Err's message.
func (e *PermanentError) Error() string { return "permanent failure: " + e.Err.Error() }

// Unwrap returns Err.
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err, or an error it wraps, was made with
// Permanent.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
