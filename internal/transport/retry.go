// Package transport is the request plumbing under the scribe client's retry
// loop: the retry policy (which answers are retried, how long to wait,
// Retry-After; connection errors are classified by go-retryablehttp's
// DefaultRetryPolicy), and the HTTP client wrapper (NoRedirects) that
// refuses redirects. Nothing here is part of the public API.
package transport

import (
	"context"
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

// Retryable reports whether an answer is worth another attempt of the same
// request (docs/contract.md, "Rate limits and idempotency"), for a request that may be replayed (a GET, or a POST
// with an Idempotency-Key): 429, 502, 503 and 504; 500 only for a GET; and a
// 409 whose code is idempotency_key_in_use (the first request with the key
// is still running; the replay carries the same key, so it does no work
// twice). A 409 idempotency_key_reused is final.
func Retryable(method string, status int, code string) bool {
	if status == http.StatusConflict {
		return code == "idempotency_key_in_use"
	}
	return RetryableStatus(method, status)
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

// RetryableError reports whether a failed attempt (no answer) is worth
// another: connection errors and attempt timeouts are, except those
// go-retryablehttp's policy knows to be permanent (TLS verification, a bad
// scheme, too many redirects).
func RetryableError(err error) bool {
	retry, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err)
	return retry
}

// RandN is the source of jitter: a number in [0, n).
func RandN(n int64) int64 { return rand.Int64N(n) }

// Jitter draws the wait before retry number attempt (0 for the first retry)
// when no Retry-After applies: uniformly between min and the capped
// exponential ceiling min(max, min·2^(attempt+1)). Full jitter above a floor,
// so that many clients hit by the same outage spread out, and none retries
// at once. randN(n) returns a number in [0, n).
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
// of seconds, or an HTTP date (a date in the past means no wait). Both forms
// are capped at MaxRetryAfter. It reports false when the header is absent or
// malformed.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(MaxRetryAfter/time.Second) { // avoid overflow; far beyond any cap
			return MaxRetryAfter, true
		}
		return time.Duration(secs) * time.Second, true
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(when.Sub(now), 0), MaxRetryAfter), true
}

// MaxRetryAfter caps what RetryAfter reports, in either form: a day, far
// beyond RetryAfterCap, so that any longer wait reads as "much too long"
// without overflowing time arithmetic.
const MaxRetryAfter = 24 * time.Hour
