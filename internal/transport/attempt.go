package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Attempt is the round tripper of one client call: go-retryablehttp sends each
// attempt through it. Before an attempt it copies the request and lets Prepare
// set what may change between attempts (the Authorization header, since a
// token source may refresh during a long backoff); it bounds the attempt by
// Timeout; after it, Observe sees the outcome (for logging). It does not
// implement CloseIdleConnections, so go-retryablehttp's habit of closing idle
// connections after a failure does not reach a connection pool that many
// scoped clients share.
type Attempt struct {
	// Base sends the request; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Timeout bounds one attempt, from sending to reading the whole body;
	// zero means no bound other than the request's context.
	Timeout time.Duration
	// Prepare, if set, edits the attempt's copy of the request. An error stops
	// the call without retries.
	Prepare func(req *http.Request) error
	// Observe, if set, is called after every attempt with its number
	// (1-based), the response or error, and how long it took.
	Observe func(n int, req *http.Request, resp *http.Response, err error, took time.Duration)

	mu sync.Mutex
	n  int
}

// ErrAttemptTimeout is returned (wrapped) when one attempt exceeds Timeout.
// It matches context.DeadlineExceeded with errors.Is and reports Timeout()
// true like a net.Error, so callers detect a timeout the way they detect any
// other in Go.
var ErrAttemptTimeout error = attemptTimeout{}

type attemptTimeout struct{}

func (attemptTimeout) Error() string        { return "attempt timed out" }
func (attemptTimeout) Timeout() bool        { return true }
func (attemptTimeout) Is(target error) bool { return target == context.DeadlineExceeded }

// Attempts reports how many attempts went through a so far.
func (a *Attempt) Attempts() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// RoundTrip implements http.RoundTripper.
func (a *Attempt) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	a.n++
	n := a.n
	a.mu.Unlock()

	ctx := req.Context()
	cancel := context.CancelFunc(func() {})
	if a.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, a.Timeout,
			fmt.Errorf("%w after %s", ErrAttemptTimeout, a.Timeout))
	}
	out := req.Clone(ctx)
	if a.Prepare != nil {
		if err := a.Prepare(out); err != nil {
			cancel()
			err = Permanent(err)
			a.observe(n, out, nil, err, 0)
			return nil, err
		}
	}
	base := a.Base
	if base == nil {
		base = http.DefaultTransport
	}
	start := time.Now()
	resp, err := base.RoundTrip(out)
	took := time.Since(start)
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrAttemptTimeout) && req.Context().Err() == nil {
			err = cause
		}
		cancel()
		a.observe(n, out, nil, err, took)
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	a.observe(n, out, resp, nil, took)
	return resp, nil
}

func (a *Attempt) observe(n int, req *http.Request, resp *http.Response, err error, took time.Duration) {
	if a.Observe != nil {
		a.Observe(n, req, resp, err, took)
	}
}

// cancelOnClose releases an attempt's timeout once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
