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

// quota is a holder's state after a request.
type quota struct {
	Limit, Remaining int
	Reset            time.Duration // until the window ends
	Allowed          bool
}

// take counts one request of holder at now, unless the quota is spent.
func (l *Limiter) take(holder string, now time.Time) quota {
	start := now.Truncate(l.Window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !start.Equal(l.start) || l.used == nil { // a new window, or a clock set back
		l.start, l.used = start, map[string]int{}
	}
	n := l.used[holder]
	q := quota{Limit: l.Limit, Reset: start.Add(l.Window).Sub(now)}
	if n < l.Limit {
		n++
		l.used[holder] = n
		q.Allowed = true
	}
	q.Remaining = l.Limit - n
	return q
}

// unlimited is the quota announced at now when rate limiting is off.
func unlimited(now time.Time) quota {
	return quota{Limit: announcedLimit, Remaining: announcedLimit, Reset: now.Truncate(announcedWindow).Add(announcedWindow).Sub(now), Allowed: true}
}

// seconds rounds d up to whole seconds, at least 0.
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((max(d, 0)+time.Second-1)/time.Second), 10)
}

// announce sets q's RateLimit headers, spelled as net/http canonicalizes.
func (q quota) announce(h http.Header) {
	h.Set("Ratelimit-Limit", strconv.Itoa(q.Limit))
	h.Set("Ratelimit-Remaining", strconv.Itoa(q.Remaining))
	h.Set("Ratelimit-Reset", seconds(q.Reset))
}
