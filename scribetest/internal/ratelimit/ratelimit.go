// Package ratelimit counts the requests of each credential holder in fixed
// windows of the server's clock (docs/contract.md, "Rate limits and
// idempotency") and says what the RateLimit headers announce.
package ratelimit

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The quota announced, all remaining, when rate limiting is off.
const (
	DefaultLimit  = 1000
	DefaultWindow = time.Minute
)

// Limiter counts requests per holder in the current window, aligned on the clock.
type Limiter struct {
	Limit  int
	Window time.Duration

	mu    sync.Mutex
	start time.Time
	used  map[string]int
}

// Quota is a holder's state after a request.
type Quota struct {
	Limit, Remaining int
	Reset            time.Duration // until the window ends
	Allowed          bool
}

// Take counts one request of holder at now, unless the quota is spent.
func (l *Limiter) Take(holder string, now time.Time) Quota {
	start := now.Truncate(l.Window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !start.Equal(l.start) || l.used == nil { // a new window, or a clock set back
		l.start, l.used = start, map[string]int{}
	}
	n := l.used[holder]
	q := Quota{Limit: l.Limit, Reset: start.Add(l.Window).Sub(now)}
	if n < l.Limit {
		n++
		l.used[holder] = n
		q.Allowed = true
	}
	q.Remaining = l.Limit - n
	return q
}

// Unlimited is the quota announced at now when rate limiting is off.
func Unlimited(now time.Time) Quota {
	return Quota{Limit: DefaultLimit, Remaining: DefaultLimit, Reset: now.Truncate(DefaultWindow).Add(DefaultWindow).Sub(now), Allowed: true}
}

// Seconds rounds d up to whole seconds, at least 0.
func Seconds(d time.Duration) string {
	return strconv.FormatInt(int64((max(d, 0)+time.Second-1)/time.Second), 10)
}

// Announce sets q's RateLimit headers, spelled as net/http canonicalizes.
func (q Quota) Announce(h http.Header) {
	h.Set("Ratelimit-Limit", strconv.Itoa(q.Limit))
	h.Set("Ratelimit-Remaining", strconv.Itoa(q.Remaining))
	h.Set("Ratelimit-Reset", Seconds(q.Reset))
}
