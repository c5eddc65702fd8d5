package scribe

import "errors"

// IdempotencyKeyOf returns the Idempotency-Key of the call that failed with
// err, and true, when that call sent one: every POST does (a random key, or
// the one given with WithIdempotencyKey), on every attempt. It finds the key
// whatever ended the call: a connection error, an attempt timeout, a
// cancellation or an expired deadline, retries running out, an API error
// (*Error), a body cut off (*ResponseInterruptedError) or one that did not
// decode. It returns "", false for nil, for a GET's error, and for a POST
// that failed before any request was sent (an *ArgumentError, say).
//
// A POST that failed may still have been done by the service: the request
// may have reached it before the connection broke or the caller stopped
// waiting. Repeat the call with WithIdempotencyKey(key) within 24 hours: the
// service then does the work at most once, and answers the repeat with what
// the first request got.
//
// The key wraps the error without changing it: its message, errors.Is and
// errors.As (context.DeadlineExceeded, context.Canceled, net.Error, *Error,
// the sentinels) are what they would be without it.
func IdempotencyKeyOf(err error) (string, bool) {
	var k interface{ idempotencyKey() string }
	if !errors.As(err, &k) {
		return "", false
	}
	key := k.idempotencyKey()
	return key, key != ""
}

func (e *Error) idempotencyKey() string                    { return e.IdempotencyKey }
func (e *ResponseInterruptedError) idempotencyKey() string { return e.IdempotencyKey }

// keyedError is an error of a POST, other than an *Error or a
// *ResponseInterruptedError (which carry the key themselves), with the
// Idempotency-Key its requests carried.
type keyedError struct {
	err error
	key string
}

func (e *keyedError) Error() string          { return e.err.Error() }
func (e *keyedError) Unwrap() error          { return e.err }
func (e *keyedError) idempotencyKey() string { return e.key }

// withIdempotencyKey returns err with key on it, for IdempotencyKeyOf.
func withIdempotencyKey(err error, key string) error {
	if k, ok := IdempotencyKeyOf(err); ok && k == key {
		return err // an *Error or *ResponseInterruptedError of this call
	}
	return &keyedError{err: err, key: key}
}
