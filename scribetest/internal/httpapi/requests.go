package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Request is one request the server answered, as the request log keeps it:
// without credentials, Method cut to 32 bytes, Path and Query to 512,
// IdempotencyKey to 255, each ending with TruncatedMarker if it was cut.
type Request struct {
	Time           time.Time // when it arrived, by the server's clock
	Method         string    // the HTTP method
	Path           string    // base path included, such as "/v1/transcripts/42"
	Query          string    // the raw query, without "?"
	IdempotencyKey string    // the Idempotency-Key header, if any
	RequestID      string    // the Request-Id answered
	Status         int       // the HTTP status answered
	Code           string    // the problem code of an error answer, such as "not_found"
}

// RequestLog keeps the last requests answered and counts them all. The zero
// value is empty and ready.
type RequestLog struct {
	mu    sync.Mutex
	recs  state.Ring[Request]
	count int
}

// Add records r, answered with status (and problem code, if any).
func (l *RequestLog) Add(r *http.Request, at time.Time, requestID string, status int, code string) {
	key := ""
	if v := r.Header["Idempotency-Key"]; len(v) > 0 {
		key = state.Truncate(v[0], maxKeyLen)
	}
	rec := Request{
		Time: at, Method: state.Truncate(r.Method, state.MaxMethod),
		Path: state.Truncate(r.URL.Path, state.MaxURLPart), Query: state.Truncate(r.URL.RawQuery, state.MaxURLPart),
		IdempotencyKey: key, RequestID: requestID, Status: status, Code: code,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.recs.Push(rec)
}

// All returns the records kept, oldest first.
func (l *RequestLog) All() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recs.All()
}

// Count returns how many requests were recorded in all.
func (l *RequestLog) Count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}

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
