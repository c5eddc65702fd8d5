package scribetest

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// The quota announced when rate limiting is off (no WithRateLimit): nothing
// is counted, and every answer states this quota with all of it remaining.
const (
	defaultRateLimit  = 1000
	defaultRateWindow = time.Minute
)

// WithRateLimit limits each credential holder (a developer key's developer,
// an installation JWT's installation) to limit requests per window of the
// server's clock. Windows are fixed and aligned on the clock (a one-minute
// window runs from one whole minute to the next), so a FakeClock moved past
// the window's end gives every holder its full quota again.
//
// Every request with a valid credential counts, whatever it is answered; a
// request over the quota is answered 429 rate_limited with Retry-After (the
// seconds until the window ends, rounded up) before any work is done.
// Answers to counted requests carry RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset (seconds until the window ends). Requests without a valid
// credential are not counted. Without WithRateLimit, nothing is limited.
//
// limit must be at least 1 and window at least one second.
func WithRateLimit(limit int, window time.Duration) Option {
	return func(cfg *config) error {
		switch {
		case limit < 1:
			return fmt.Errorf("scribetest: WithRateLimit: limit is %d; it must be at least 1 request per window", limit)
		case window < time.Second:
			return fmt.Errorf("scribetest: WithRateLimit: window is %s; it must be at least 1s, since the RateLimit headers count whole seconds", window)
		}
		cfg.limiter = &rateLimiter{limit: limit, window: window}
		return nil
	}
}

// rateLimiter counts requests per holder in the current fixed window. Only
// the current window's counts are kept: the map is dropped when the window
// moves on, so memory is bounded by the holders active in one window.
type rateLimiter struct {
	limit  int
	window time.Duration

	mu    sync.Mutex
	start time.Time      // the current window's start
	used  map[string]int // holder (principal.scope) -> requests counted
}

// quota is a holder's state after a request: what the RateLimit headers
// announce, and whether the request may go on.
type quota struct {
	limit, remaining int
	reset            time.Duration // until the window ends
	allowed          bool
}

// take counts one request of holder at now, unless the quota is spent.
func (l *rateLimiter) take(holder string, now time.Time) quota {
	start := now.Truncate(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !start.Equal(l.start) || l.used == nil {
		// A new window (or a clock set back): every quota is full again.
		l.start = start
		l.used = map[string]int{}
	}
	n := l.used[holder]
	q := quota{limit: l.limit, reset: start.Add(l.window).Sub(now)}
	if n < l.limit {
		n++
		l.used[holder] = n
		q.allowed = true
	}
	q.remaining = l.limit - n
	return q
}

// untilWindowEnd is the time from now to the end of its window of length w.
func untilWindowEnd(now time.Time, w time.Duration) time.Duration {
	return now.Truncate(w).Add(w).Sub(now)
}

// seconds rounds d up to whole seconds, as the headers count them.
func seconds(d time.Duration) string { return strconv.FormatInt(ceilSeconds(d), 10) }

// ceilSeconds is d in whole seconds, rounded up; 0 for a negative d.
func ceilSeconds(d time.Duration) int64 { return int64((max(d, 0) + time.Second - 1) / time.Second) }

// announce sets the RateLimit headers of q. It is on every answer, so it
// stores the canonical keys (what Header.Set would) and shared values for
// small counts directly, without allocating.
func (q quota) announce(h http.Header) {
	h["Ratelimit-Limit"] = headerInt(int64(q.limit))
	h["Ratelimit-Remaining"] = headerInt(int64(q.remaining))
	h["Ratelimit-Reset"] = headerInt(ceilSeconds(q.reset))
}

// smallInts are header values for 0 to 1024, shared by every response
// (net/http only reads them; len == cap, so an Add copies).
var smallInts = func() (v [1025][]string) {
	for i := range v {
		v[i] = []string{strconv.Itoa(i)}
	}
	return v
}()

// headerInt is the header value of n.
func headerInt(n int64) []string {
	if n >= 0 && n < int64(len(smallInts)) {
		return smallInts[n][:1:1]
	}
	return []string{strconv.FormatInt(n, 10)}
}

// rateLimited is the 429 for a spent quota.
func rateLimited(q quota) *problem {
	return newProblem(http.StatusTooManyRequests, scribe.CodeRateLimited,
		fmt.Sprintf("the credential has made its %d requests of this window; retry after %s seconds", q.limit, seconds(q.reset))).
		with("Retry-After", seconds(q.reset))
}
