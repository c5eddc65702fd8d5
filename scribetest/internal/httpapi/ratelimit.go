package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The quota announced, all remaining, when rate limiting is off.
const (
	announcedLimit  = 1000
	announcedWindow = time.Minute
)

// Limiter counts the requests of each credential holder in fixed windows of
// the server's clock (docs/contract.md, "Rate limits and idempotency").
type Limiter struct {
	Limit  int
	Window time.Duration

	mu    sync.Mutex
	start time.Time
	used  map[string]int
}

// take counts one request of holder at now unless its quota is spent, and
// says how many requests remain and how long until the window ends.
func (l *Limiter) take(holder string, now time.Time) (remaining int, reset time.Duration, allowed bool) {
	start := now.Truncate(l.Window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !start.Equal(l.start) || l.used == nil { // a new window, or a clock set back
		l.start, l.used = start, map[string]int{}
	}
	if allowed = l.used[holder] < l.Limit; allowed {
		l.used[holder]++
	}
	return l.Limit - l.used[holder], start.Add(l.Window).Sub(now), allowed
}

// seconds rounds d up to whole seconds, at least 0.
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((max(d, 0)+time.Second-1)/time.Second), 10)
}

// announce sets the RateLimit headers of a quota, spelled as net/http
// canonicalizes them.
func announce(h http.Header, limit, remaining int, reset time.Duration) {
	h.Set("Ratelimit-Limit", strconv.Itoa(limit))
	h.Set("Ratelimit-Remaining", strconv.Itoa(remaining))
	h.Set("Ratelimit-Reset", seconds(reset))
}
