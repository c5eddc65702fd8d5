package transport

import (
	"context"
	"net/http"
	"time"
)

// ErrAttemptTimeout is returned (wrapped) when one attempt exceeds the
// per-attempt timeout. It is a net.Error whose Timeout reports true, and it
// matches context.DeadlineExceeded with errors.Is, so callers detect it the
// way they detect any other timeout in Go: a context's deadline, an
// http.Client's Timeout, a dial or read deadline.
var ErrAttemptTimeout error = attemptTimeout{}

// AttemptTimeout returns the error of an attempt that ran out of its time
// d: ErrAttemptTimeout, saying after how long. Nothing is formatted until
// the error is printed, since every attempt makes one for its context.
func AttemptTimeout(d time.Duration) error { return attemptTimeout{d} }

type attemptTimeout struct{ after time.Duration }

func (e attemptTimeout) Error() string {
	if e.after == 0 {
		return "attempt timed out"
	}
	return "attempt timed out after " + e.after.String()
}
func (attemptTimeout) Timeout() bool   { return true }
func (attemptTimeout) Temporary() bool { return true } // as context.DeadlineExceeded says
func (attemptTimeout) Is(target error) bool {
	return target == context.DeadlineExceeded || target == ErrAttemptTimeout
}

// NoRedirects returns a copy of hc (its Transport, Jar and Timeout) that
// follows no redirect: its CheckRedirect hands the 3xx answer back to the
// caller, which makes it an error, so no credential reaches the redirect's
// target. hc itself is not modified.
func NoRedirects(hc *http.Client) *http.Client {
	cp := *hc
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}
