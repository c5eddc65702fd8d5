package scribetest

import (
	"net/http"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Request is one request the server answered, without credentials; Method is cut
// to 32 bytes, Path and Query to 512, IdempotencyKey to 255 (TruncatedMarker).
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

// TruncatedMarker ends a value the server kept cut short (see Request).
const TruncatedMarker = state.TruncatedMarker

// Requests returns the requests answered, oldest first (the last 10,000).
func (s *Server) Requests() []Request { return s.log.all() }

// RequestCount returns how many requests the server has answered.
func (s *Server) RequestCount() int { return s.log.total() }

// requestLog keeps the last requests answered and counts them all. The zero
// value is empty and ready.
type requestLog struct {
	mu    sync.Mutex
	recs  state.Ring[Request]
	count int
}

// add records r, answered with status (and problem code, if any).
func (l *requestLog) add(r *http.Request, at time.Time, requestID string, status int, code string) {
	key := ""
	if v := r.Header["Idempotency-Key"]; len(v) > 0 {
		key = state.Truncate(v[0], state.MaxIdempotencyKey)
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

// all returns the records kept, oldest first.
func (l *requestLog) all() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recs.All()
}

// total returns how many requests were recorded in all.
func (l *requestLog) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}
