package scribe

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/transport"
)

// run sends the call's attempts until one answer is final, and returns it
// with its 2xx body (nil for any other status), or the error that ended
// the call. The policy is docs/client.md's ("Retries and idempotency"): a
// failed attempt is retried when it is worth it and the request may be
// replayed (a GET or another idempotent method, or a POST with an
// Idempotency-Key), at most
// WithMaxRetries times, after a backoff or the Retry-After the service
// asked for; and after a 401 with a token source that can invalidate, the
// request is sent once more with a fresh token, which uses up no retry.
func (cl *call) run() (*http.Response, []byte, error) {
	s := cl.s
	var invalidator TokenInvalidator
	if ts, ok := s.credential.(*tokenSource); ok {
		invalidator, _ = ts.ts.(TokenInvalidator)
	}
	replayable := cl.idemKey != "" || idempotent(cl.method)
	refreshed := false // the one 401 recovery has been used
	retries := 0
	for {
		resp, data, retry, err := cl.attempt()
		if resp != nil && resp.StatusCode == http.StatusUnauthorized && invalidator != nil && !refreshed {
			// The token was refused (revoked key, clock skew, ...): drop it
			// and try once more with a fresh one. Never twice.
			refreshed = true
			invalidator.Invalidate(cl.token)
			cl.log(slog.LevelInfo, "scribe: token refused; retrying once with a fresh token", slog.Int("attempt", cl.attempts))
			cl.op.Retried, cl.op.Wait = err, 0
			continue
		}
		if err == nil || !retry || !replayable {
			return resp, data, err
		}
		if retries >= s.maxRetries {
			cl.giveUp("retries exhausted", err)
			return resp, data, err
		}
		wait := transport.Jitter(s.waitMin, s.waitMax, retries, transport.RandN)
		if resp != nil && resp.StatusCode > 299 { // an error answer may say how long to wait
			if after, ok := transport.RetryAfter(resp.Header, time.Now()); ok {
				if after > transport.RetryAfterCap {
					cl.giveUp("Retry-After beyond the cap", err)
					return resp, data, err
				}
				wait = after
				if after > time.Second {
					// A sleeping backend must not look frozen (go-github #3220).
					cl.log(slog.LevelInfo, fmt.Sprintf("scribe: throttled by the service for %d s", (after+time.Second-1)/time.Second),
						slog.Int("attempt", cl.attempts), slog.Int("status", resp.StatusCode), slog.Duration("wait", after))
				}
			}
		}
		if dl, ok := cl.ctx.Deadline(); ok && time.Until(dl) <= wait {
			cl.giveUp("the wait would outlast the context deadline", err, slog.Duration("wait", wait))
			return resp, data, err
		}
		cl.log(slog.LevelInfo, "scribe: retrying", slog.Int("attempt", cl.attempts), slog.Duration("wait", wait),
			slog.String("error", redact.Known(err.Error(), cl.token)))
		if err := cl.wait(wait, err); err != nil {
			return resp, nil, err
		}
		cl.op.Retried, cl.op.Wait = err, wait
		retries++
	}
}

// idempotent reports whether RFC 9110 calls method idempotent: a request
// with it may be sent again without doing its work twice.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// wait waits d before the next attempt. It returns the call's error when
// ctx ends first, which wraps both ctx's error and last, the failure the
// retry follows.
func (cl *call) wait(d time.Duration, last error) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-cl.ctx.Done():
		return fmt.Errorf("scribe: %s %s (%s): %w; last failure: %w", cl.method, cl.path, plural(cl.attempts, "attempt"), cl.ctx.Err(), last)
	case <-timer.C:
		return nil
	}
}
