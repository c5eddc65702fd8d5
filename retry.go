package scribe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/scribehq/scribe-go/internal/transport"
)

// metaOf is what a call reports of resp (none for nil).
func metaOf(resp *http.Response) meta {
	if resp == nil {
		return meta{}
	}
	return meta{statusCode: resp.StatusCode, requestID: resp.Header.Get("Request-Id")}
}

// checkRetry is go-retryablehttp's CheckRetry: it decides, after every
// attempt and before the library drains the answer, whether to retry.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	cl, ok := ctx.(*call)
	if !ok { // not a request of ours
		return false, nil
	}
	return cl.checkRetry(resp, err), nil
}

// chosenWait is go-retryablehttp's Backoff: the wait checkRetry chose, which
// it leaves in the per-call client's RetryWaitMin (the hook sees no other
// per-call state when the attempt got no answer).
func chosenWait(wait, _ time.Duration, _ int, _ *http.Response) time.Duration { return wait }

// prepareRetry is go-retryablehttp's PrepareRetry: it gives the library's
// copy of the request for the next attempt a fresh header (the token source
// may have refreshed during the wait). The Idempotency-Key and the body stay
// the same.
func prepareRetry(req *http.Request) error {
	cl, ok := req.Context().(*call)
	if !ok {
		return nil
	}
	return cl.prepare(req)
}

// checkRetry decides after each attempt: it logs the attempt, reads a 2xx
// body into cl.data and the error body of any other answer into cl.apiErr
// (both before the library drains the answer, and a body cut off mid-way is
// a failed attempt like a dropped connection), and reports whether to
// retry, after choosing the wait.
func (cl *call) checkRetry(resp *http.Response, err error) bool {
	s := cl.s
	cl.retrying, cl.resp, cl.apiErr, cl.err = false, resp, nil, nil
	if !cl.start.IsZero() {
		cl.took = time.Since(cl.start)
	}
	if err != nil {
		if ctxErr := cl.ctx.Err(); ctxErr != nil {
			cl.err = cl.stopped(ctxErr, cl.last)
			return false
		}
		retryable := transport.RetryableError(err) // on the *url.Error, which the policy inspects
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL; ours names the operation
		}
		if errors.Is(err, transport.ErrRedirect) {
			cl.err = fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
			return false
		}
		cl.logAttemptErr(err)
		last := fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), err)
		cl.err = last
		if !cl.replayable || !retryable {
			return false
		}
		if cl.retries >= s.maxRetries {
			cl.giveUp("retries exhausted", last)
			return false
		}
		return cl.schedule(transport.Jitter(s.waitMin, s.waitMax, cl.retries, transport.RandN), last)
	}
	cl.logAttempt(resp)
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return cl.readSuccess(resp)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return false // the error is built by run
	}
	e := cl.apiError(resp)
	cl.att.Release()
	resp.Body = http.NoBody // read and closed; nothing left for the library to drain
	cl.apiErr = e
	// A 401 is not retryable: run handles its one recovery.
	if !cl.replayable || !transport.Retryable(cl.r.method, resp.StatusCode, e.Code) {
		return false
	}
	if cl.retries >= s.maxRetries {
		cl.giveUp("retries exhausted", e)
		return false
	}
	wait, ok := transport.RetryAfter(resp.Header, time.Now())
	if ok && wait > transport.RetryAfterCap {
		cl.giveUp("Retry-After beyond the cap", e)
		return false
	}
	if !ok {
		wait = transport.Jitter(s.waitMin, s.waitMax, cl.retries, transport.RandN)
	}
	return cl.schedule(wait, e)
}

// schedule settles a retry after wait, unless the wait would outlast ctx's
// deadline: then it is not started, and the call returns the last failure
// at once. go-retryablehttp sleeps the wait (chosenWait), stopping early if
// ctx ends; with WithRetrySleep, its function waits instead, here, and the
// library's wait is zero.
func (cl *call) schedule(wait time.Duration, last error) bool {
	sleep := cl.s.sleep
	if dl, ok := cl.ctx.Deadline(); ok && sleep == nil && time.Until(dl) <= wait {
		cl.giveUp("the wait would outlast the context deadline", last, slog.Duration("wait", wait))
		return false
	}
	if cl.logging(slog.LevelInfo) {
		cl.log(slog.LevelInfo, "scribe: retrying", slog.Int("attempt", cl.attempts), slog.Duration("wait", wait),
			slog.String("error", scrub(last.Error(), cl.token)))
	}
	cl.last = last
	cl.retries++
	cl.retrying = true
	if sleep != nil {
		// An error ends the call before the next attempt (prepare).
		cl.waitErr = sleep(cl.ctx, wait)
		wait = 0
	}
	cl.rc.RetryWaitMin, cl.rc.RetryWaitMax = wait, wait
	return true
}

// stopped is the error of a call whose context ended: it wraps both the
// context's error and, when there was one, the last failure.
func (cl *call) stopped(ctxErr, last error) error {
	if last != nil {
		return fmt.Errorf("scribe: %s %s (%s): %w; last failure: %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), ctxErr, last)
	}
	return fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), ctxErr)
}

// Logging levels (docs/client.md, Logging): each attempt at Debug; a retry
// and the 401 recovery at Info; a give-up after retryable failures at Warn.

func (cl *call) logAttempt(resp *http.Response) {
	if !cl.logging(slog.LevelDebug) {
		return // no attributes built on every attempt of a client that does not log
	}
	cl.log(slog.LevelDebug, "scribe: attempt",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", cl.took),
		slog.Int("status", resp.StatusCode),
		slog.String("request_id", scrubField(resp.Header.Get("Request-Id"), cl.token, maxRequestIDLen)))
}

func (cl *call) logAttemptErr(err error) {
	if !cl.logging(slog.LevelDebug) {
		return
	}
	cl.log(slog.LevelDebug, "scribe: attempt failed",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", cl.took),
		slog.String("error", scrub(err.Error(), cl.token)))
}

// giveUp logs, at Warn, that a call stops after a retryable failure.
func (cl *call) giveUp(reason string, last error, attrs ...slog.Attr) {
	if !cl.logging(slog.LevelWarn) {
		return
	}
	cl.log(slog.LevelWarn, "scribe: giving up", append([]slog.Attr{
		slog.String("reason", reason), slog.Int("attempts", cl.attempts),
		slog.String("error", scrub(last.Error(), cl.token))}, attrs...)...)
}

// log writes one line naming the operation; it is given no header value,
// token or key.
func (cl *call) log(level slog.Level, msg string, attrs ...slog.Attr) {
	if !cl.logging(level) {
		return
	}
	cl.s.logger.LogAttrs(cl.ctx, level, msg, append([]slog.Attr{
		slog.String("method", cl.r.method), slog.String("path", cl.path())}, attrs...)...)
}

// logging reports whether the client has a logger that takes lines of level.
func (cl *call) logging(level slog.Level) bool {
	return cl.s.logger != nil && cl.s.logger.Enabled(cl.ctx, level)
}

// plural returns "1 attempt", "3 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
