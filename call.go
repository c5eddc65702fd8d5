package scribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/scribehq/scribe-go/internal/transport"
)

// call is the state of one operation across its attempts. go-retryablehttp
// runs the attempts (rc.Do); its hooks are plain functions that find the
// call through the request's context, which is the call itself (see
// Value), so that a call costs one allocation for its state and none for
// closures. The hooks are in retry.go; reading and decoding answers in
// decode.go.
type call struct {
	ctx      context.Context // the caller's
	s        *settings
	r        request
	u        *url.URL
	bearer   *atomic.Pointer[bearerHeader] // the client's, nil for none
	body     []byte
	idemKey  string
	attempts int
	token    string        // the credential of the latest attempt, to scrub from what the service says
	opPath   string        // r.path(), computed when first needed
	start    time.Time     // when the latest attempt started, measured only for a debug logger
	took     time.Duration // how long the latest attempt took, measured only for a debug logger

	// replayable: a GET, or a POST with an Idempotency-Key.
	replayable bool
	// retries counts the retries done, across the 401 recovery too.
	retries int
	// retrying reports that checkRetry's latest verdict was "retry": an
	// error from rc.Do then means the wait ended with ctx (or the token
	// source failed before the next attempt).
	retrying bool
	// resp is the latest attempt's answer (nil after a connection error);
	// for a non-2xx, non-3xx answer apiErr is its error, built from its body
	// before go-retryablehttp drains it.
	resp   *http.Response
	apiErr *Error
	// data is the latest 2xx answer's body, read within the attempt
	// (checkRetry), so that a body cut off mid-way is retried like a
	// connection failure; tooLarge reports one over the limit, left unread.
	data     []byte
	tooLarge bool
	// err is the call's error after an attempt without a whole answer.
	err error
	// last is the failure the latest retry follows, for a call whose
	// context ends before the next answer.
	last error
	// waitErr is the error of the WithRetrySleep function, which ends the
	// call before its next attempt.
	waitErr error

	att transport.Attempt     // the attempt timeout, read by the round tripper
	rc  retryablehttp.Client  // the retry loop, built per call around s.hc
	req retryablehttp.Request // the request, its body replayed on every attempt
}

// A call is the context of its requests: the caller's context, plus the
// attempt bound for the round tripper. This is how go-retryablehttp's hooks
// (checkRetry and prepareRetry get the request's context) and the round
// tripper reach the per-call state without a closure or a context value
// allocated per call.

// Deadline implements context.Context: the caller's.
func (cl *call) Deadline() (time.Time, bool) { return cl.ctx.Deadline() }

// Done implements context.Context: the caller's.
func (cl *call) Done() <-chan struct{} { return cl.ctx.Done() }

// Err implements context.Context: the caller's.
func (cl *call) Err() error { return cl.ctx.Err() }

// Value implements context.Context: the attempt bound under
// transport.AttemptKey, the caller's values otherwise.
func (cl *call) Value(key any) any {
	if _, ok := key.(transport.AttemptKey); ok {
		return &cl.att
	}
	return cl.ctx.Value(key)
}

func (cl *call) path() string {
	if cl.opPath == "" {
		cl.opPath = cl.r.path()
	}
	return cl.opPath
}

// run sends the call through go-retryablehttp and returns its result and the
// final response (its body already consumed and closed), if any. Around the
// library's loop it adds one step of its own: after a 401 it invalidates the
// token and runs the loop once more with a fresh one.
func (cl *call) run(out any) (meta, *http.Response, error) {
	s := cl.s
	defer cl.att.Release()
	if err := cl.begin(); err != nil {
		return meta{}, nil, err
	}
	var invalidator TokenInvalidator
	if ts, ok := s.credential.(*tokenSource); ok {
		invalidator, _ = ts.ts.(TokenInvalidator)
	}
	refreshed := false // the one 401 recovery has been used
	for {
		// checkRetry stops at the same count; RetryMax is the library's
		// bound should the two ever disagree.
		cl.rc.RetryMax = s.maxRetries - cl.retries
		resp, err := cl.rc.Do(&cl.req)
		if err != nil {
			return cl.failed(err)
		}
		m := metaOf(resp)
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode <= 299:
			return m, resp, cl.decode(resp, m, out)
		case resp.StatusCode >= 300 && resp.StatusCode <= 399:
			// The service never redirects (docs/contract.md, "Operations"):
			// a 3xx is an answer from something else, and is not followed.
			e := cl.apiError(resp)
			cl.att.Release()
			return m, resp, e
		}
		e := cl.apiErr
		if e == nil { // checkRetry saw every answer; never nil in practice
			e = cl.apiError(resp)
		}
		if resp.StatusCode == http.StatusUnauthorized && !refreshed && invalidator != nil && cl.token != "" {
			// The token was refused (revoked key, clock skew, ...): drop it
			// and try once more with a fresh one. Never twice.
			refreshed = true
			if err := cl.refresh(invalidator); err != nil {
				return meta{}, nil, err
			}
			continue
		}
		return m, resp, e
	}
}

// begin builds the first attempt's request and the retry loop around it.
func (cl *call) begin() error {
	s := cl.s
	if s.timeout > 0 {
		cl.att.Timeout, cl.att.Cause = s.timeout, s.timeoutCause
	}
	h, err := cl.header()
	if err != nil {
		return cl.tokenFailure(err)
	}
	cl.req.Request = (&http.Request{
		Method:     cl.r.method,
		URL:        cl.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       cl.u.Host,
	}).WithContext(cl)
	if cl.body != nil {
		if err := cl.req.SetBody(cl.body); err != nil { // a []byte: replayed from a new reader on every attempt
			return fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
		}
	}
	rc := &cl.rc
	rc.HTTPClient = s.hc // its transport bounds each attempt (cl.att) and refuses redirects
	rc.CheckRetry = checkRetry
	rc.Backoff = chosenWait
	rc.PrepareRetry = prepareRetry
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler // the last answer or error, not "giving up after"
	cl.replayable = cl.r.method != http.MethodPost || cl.idemKey != ""
	return nil
}

// failed is the call's result when rc.Do returned an error: the token
// source failed, the context ended during a wait, or the last attempt got
// no whole answer.
func (cl *call) failed(err error) (meta, *http.Response, error) {
	var tokErr *tokenError
	switch {
	case errors.As(err, &tokErr):
		return meta{}, nil, cl.tokenFailure(tokErr)
	case cl.retrying:
		// ctx ended, or WithRetrySleep's function failed, during the wait
		// before a retry.
		return metaOf(cl.resp), cl.resp, cl.stopped(err, cl.last)
	case cl.err != nil:
		return meta{}, nil, cl.err
	}
	return meta{}, nil, fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), err)
}

// refresh invalidates the refused token and readies the request for one
// more attempt with a fresh one.
func (cl *call) refresh(invalidator TokenInvalidator) error {
	invalidator.Invalidate(cl.token)
	cl.log(slog.LevelInfo, "scribe: token refused; retrying once with a fresh token", slog.Int("attempt", cl.attempts))
	next := *cl.req.Request // a copy, as go-retryablehttp makes before a retry: the sent request is not reused
	if err := cl.prepare(&next); err != nil {
		return cl.tokenFailure(err)
	}
	cl.req.Request = &next
	return nil
}

// prepare readies req for the next attempt.
func (cl *call) prepare(req *http.Request) error {
	if cl.waitErr != nil {
		return cl.waitErr
	}
	h, err := cl.header()
	if err != nil {
		return err
	}
	req.Header = h
	return nil
}

// header counts a new attempt and returns its header, with a token from the
// credential. A fresh map every attempt: the previous request may still be
// read by its connection.
func (cl *call) header() (http.Header, error) {
	s := cl.s
	cl.attempts++
	h := make(http.Header, len(s.header)+5)
	for k, v := range s.header {
		h[k] = v
	}
	h["User-Agent"] = s.uaHeader
	h["Accept"] = acceptJSON
	cl.token = ""
	if s.credential != nil {
		tok, err := s.credential.token(cl.ctx)
		if err != nil {
			return nil, &tokenError{fmt.Errorf("token source: %w", err)}
		}
		if tok == "" || !validToken(tok) {
			return nil, &tokenError{errors.New("token source returned an empty token or one with spaces or control characters")}
		}
		cl.token = tok
		h["Authorization"] = cl.authorization(tok)
	}
	if cl.idemKey != "" {
		h["Idempotency-Key"] = []string{cl.idemKey}
	}
	if cl.body != nil {
		h["Content-Type"] = contentTypeJSON
	}
	if cl.logging(slog.LevelDebug) {
		cl.start = time.Now()
	}
	return h, nil
}

// authorization returns the Authorization header value for tok: the
// client's cached one when the token is the one it was built for.
func (cl *call) authorization(tok string) []string {
	if cl.bearer == nil {
		return []string{"Bearer " + tok}
	}
	if b := cl.bearer.Load(); b != nil && b.token == tok {
		return b.value
	}
	b := &bearerHeader{token: tok, value: []string{"Bearer " + tok}}
	cl.bearer.Store(b)
	return b.value
}

// tokenFailure is the call's error when the credential failed; it stops the
// call at once.
func (cl *call) tokenFailure(err error) error {
	var tokErr *tokenError
	if errors.As(err, &tokErr) {
		err = tokErr.err
	}
	return fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
}

// tokenError is a failure of the credential; it stops the call at once.
type tokenError struct{ err error }

func (e *tokenError) Error() string { return e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }
