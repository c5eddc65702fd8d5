package transport

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ErrAttemptTimeout is returned (wrapped) when one attempt exceeds the
// per-attempt timeout. It matches context.DeadlineExceeded with errors.Is and
// reports Timeout() true like a net.Error, so callers detect a timeout the
// way they detect any other in Go.
var ErrAttemptTimeout error = attemptTimeout{}

type attemptTimeout struct{}

func (attemptTimeout) Error() string        { return "attempt timed out" }
func (attemptTimeout) Timeout() bool        { return true }
func (attemptTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrRedirect is returned (wrapped) when net/http tries to follow a redirect
// through a client made by NoRedirects: the redirected request is refused
// before it is sent, so no credential reaches the redirect's target.
var ErrRedirect = errors.New("the service answered with a redirect, which the client does not follow")

// AttemptKey is the context key of a call's *Attempt: the round tripper of
// NoRedirects bounds every request whose context's Value(AttemptKey{}) is
// one.
type AttemptKey struct{}

// Attempt bounds each attempt of one call. go-retryablehttp sends every
// attempt under the same request context, so the bound cannot live in that
// context: the round tripper derives one per attempt.
//
// Its methods are called from the goroutine that sends the call's requests
// (http.Client.Do runs the round tripper on the caller's goroutine).
type Attempt struct {
	// Timeout bounds one attempt, from sending the request to reading the
	// whole body; zero means no bound besides the request's context. A
	// context deadline that comes first bounds the attempt already: no
	// timer is made then.
	Timeout time.Duration
	// Cause is the error of an attempt that ran out of time; it should wrap
	// ErrAttemptTimeout. The round tripper returns it, instead of the
	// transport's error, when the attempt (not the request's context) timed
	// out.
	Cause error

	cancel context.CancelFunc // releases the latest attempt's timer
}

// Release releases the latest attempt's timer. Call it once that attempt's
// body is read; the next attempt releases it too.
func (a *Attempt) Release() {
	if a.cancel != nil {
		a.cancel()
		a.cancel = nil
	}
}

// NoRedirects returns a copy of hc (its Transport, Jar and Timeout) that
// follows no redirect: its CheckRedirect hands the 3xx answer back to the
// caller, and its transport refuses, as a second line, any request net/http
// sends while following a redirect (req.Response set), in case a caller's
// code path re-enables following. hc itself is not modified.
//
// The same transport bounds each request whose context carries an *Attempt
// (see AttemptKey).
//
// The transport wrapper does not expose CloseIdleConnections, so closing
// idle connections of the copy (go-retryablehttp does, after a failed call)
// does not reach a pool that many clients share.
func NoRedirects(hc *http.Client) *http.Client {
	cp := *hc
	cp.Transport = &guard{base: hc.Transport}
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// guard refuses requests that net/http makes to follow a redirect, and bounds
// the attempts of a call.
type guard struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrRedirect
	}
	base := g.base
	if base == nil {
		base = http.DefaultTransport
	}
	ctx := req.Context()
	a, _ := ctx.Value(AttemptKey{}).(*Attempt)
	if a == nil || a.Timeout <= 0 {
		return base.RoundTrip(req)
	}
	a.Release()
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= a.Timeout {
		return base.RoundTrip(req)
	}
	actx, cancel := context.WithTimeoutCause(ctx, a.Timeout, a.Cause)
	resp, err := base.RoundTrip(req.WithContext(actx))
	if err != nil {
		if a.Cause != nil && context.Cause(actx) == a.Cause && ctx.Err() == nil {
			err = a.Cause
		}
		cancel()
		return nil, err
	}
	a.cancel = cancel // the body is read under actx
	return resp, nil
}
