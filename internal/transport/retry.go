// Package transport is the request plumbing under the scribe client: the retry
// policy handed to go-retryablehttp (which answers are retried, how long to
// wait, Retry-After) and the round tripper that prepares and observes every
// single attempt. Nothing here is part of the public API.
package transport

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryAfterCap is the longest Retry-After the client waits for. An answer
// asking for a longer wait is not retried: the caller gets the error, with
// its RetryAfter, and decides.
const RetryAfterCap = 60 * time.Second

// permanentError marks an error that no retry can fix, such as a token source
// that failed or a request the client refused to send.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent wraps err so that CheckRetry never retries it.
func Permanent(err error) error { return &permanentError{err: err} }

// CheckRetry returns the retry policy for one request (CONTRACT §6):
//
//   - nothing is retried once ctx is done;
//   - a POST is retried only when it carries an Idempotency-Key (replayable);
//   - connection errors are retried, except those go-retryablehttp knows to be
//     permanent (TLS verification, bad scheme, redirect loops) and Permanent ones;
//   - 429, 502, 503 and 504 are retried, 500 only for GET;
//   - an answer whose Retry-After exceeds RetryAfterCap is not retried.
func CheckRetry(method string, replayable bool) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, ctxErr
		}
		if method == http.MethodPost && !replayable {
			return false, nil
		}
		if err != nil {
			var p *permanentError
			if errors.As(err, &p) {
				return false, nil
			}
			// The library's own classification of transport errors.
			retry, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, err)
			return retry, nil
		}
		if !RetryableStatus(method, resp.StatusCode) {
			return false, nil
		}
		if wait, ok := RetryAfter(resp.Header, time.Now()); ok && wait > RetryAfterCap {
			return false, nil
		}
		return true, nil
	}
}

// RetryableStatus reports whether an answer with this status is worth
// another attempt of the same request.
func RetryableStatus(method string, status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case http.StatusInternalServerError:
		return method == http.MethodGet
	}
	return false
}

// Backoff is the wait before retry number attempt (0 for the first retry).
// A Retry-After on the answer wins (CheckRetry has already refused one above
// RetryAfterCap). Otherwise the wait is drawn uniformly between min and the
// capped exponential ceiling min(max, min·2^(attempt+1)): full jitter above a
// floor, so that many clients hit by the same outage spread out, and none
// retries at once.
func Backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if wait, ok := RetryAfter(resp.Header, time.Now()); ok {
			return min(wait, RetryAfterCap)
		}
	}
	return Jitter(minWait, maxWait, attempt, rand.Int64N)
}

// Jitter draws the wait of Backoff when no Retry-After applies; randN(n)
// returns a number in [0, n).
func Jitter(minWait, maxWait time.Duration, attempt int, randN func(int64) int64) time.Duration {
	if minWait <= 0 {
		minWait = 0
	}
	maxWait = max(maxWait, minWait)
	ceiling := minWait
	for i := 0; i <= attempt && ceiling < maxWait; i++ {
		if ceiling > maxWait/2 { // doubling would pass the cap (or overflow)
			ceiling = maxWait
			break
		}
		ceiling *= 2
	}
	if ceiling <= minWait {
		return minWait
	}
	return minWait + time.Duration(randN(int64(ceiling-minWait)+1))
}

// RetryAfter reads a Retry-After header in either form of RFC 9110: a number
// of seconds, or an HTTP date (a date in the past means no wait). It reports
// false when the header is absent or malformed.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) { // avoid overflow; far beyond any cap
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(when.Sub(now), 0), true
}
