package transport

import (
	"context"
	"errors"
	"net/http"
)

// ErrAttemptTimeout is returned (wrapped) when one attempt exceeds the
// per-attempt timeout. It is a net.Error whose Timeout reports true, and it
// matches context.DeadlineExceeded with errors.Is, so callers detect it the
// way they detect any other timeout in Go: a context's deadline, an
// http.Client's Timeout, a dial or read deadline.
var ErrAttemptTimeout error = attemptTimeout{}

type attemptTimeout struct{}

func (attemptTimeout) Error() string        { return "attempt timed out" }
func (attemptTimeout) Timeout() bool        { return true }
func (attemptTimeout) Temporary() bool      { return true } // as context.DeadlineExceeded says
func (attemptTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// ErrRedirect is returned (wrapped) when net/http tries to follow a redirect
// through a client made by NoRedirects: the redirected request is refused
// before it is sent, so no credential reaches the redirect's target.
var ErrRedirect = errors.New("the service answered with a redirect, which the client does not follow")

// NoRedirects returns a copy of hc (its Transport, Jar and Timeout) that
// follows no redirect: its CheckRedirect hands the 3xx answer back to the
// caller, and its transport refuses, as a second line, any request net/http
// sends while following a redirect (req.Response set), in case a caller's
// code path re-enables following. hc itself is not modified.
//
// The transport wrapper does not expose CloseIdleConnections, so that
// nothing done with the copy closes the idle connections of a pool that
// many clients share.
func NoRedirects(hc *http.Client) *http.Client {
	cp := *hc
	cp.Transport = &guard{base: hc.Transport}
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// guard refuses requests that net/http makes to follow a redirect.
type guard struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrRedirect
	}
	if g.base == nil {
		return http.DefaultTransport.RoundTrip(req)
	}
	return g.base.RoundTrip(req)
}
