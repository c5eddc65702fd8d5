package scribe

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Response is what one answer of the service said besides its body. Ask for
// it with WithResponseInto on any call; a Pager keeps one on every Page
// (Page.Response). It describes the final answer of the call, after retries.
type Response struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Header holds the answer's headers; it belongs to the caller.
	Header http.Header
	// RequestID is the answer's Request-Id; quote it when reporting a problem.
	RequestID string
	// Attempts is how many requests the call sent to get this answer: 1, or
	// more after retries or a refused token.
	Attempts int
}

// RateLimit holds the figures of the RateLimit-* headers (docs/contract.md, "Rate limits and idempotency"):
// the token's limit, what remains of it, and when it resets.
type RateLimit struct {
	// Limit is RateLimit-Limit: the requests the token may send in a window.
	Limit int
	// Remaining is RateLimit-Remaining: the requests left in this window.
	Remaining int
	// Reset is RateLimit-Reset: the time until the window resets.
	Reset time.Duration
}

// RateLimit returns the figures of the answer's RateLimit-Limit,
// RateLimit-Remaining and RateLimit-Reset headers. It reports false when any
// of them is missing or is not a non-negative integer.
func (r *Response) RateLimit() (RateLimit, bool) {
	if r == nil {
		return RateLimit{}, false
	}
	limit, ok1 := headerInt(r.Header, "Ratelimit-Limit")
	remaining, ok2 := headerInt(r.Header, "Ratelimit-Remaining")
	reset, ok3 := headerInt(r.Header, "Ratelimit-Reset")
	if !ok1 || !ok2 || !ok3 {
		return RateLimit{}, false
	}
	return RateLimit{Limit: limit, Remaining: remaining, Reset: time.Duration(min(reset, 1<<31)) * time.Second}, true
}

// headerInt reads a header holding one non-negative integer.
func headerInt(h http.Header, key string) (int, bool) {
	v := strings.TrimSpace(h.Get(key))
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
