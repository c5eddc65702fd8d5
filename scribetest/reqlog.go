package scribetest

import (
	"net/http"
	"sync"
	"time"
)

// Request is one request the server answered, as its request log keeps it.
// It holds no credential.
type Request struct {
	// Time is when the request arrived, by the server's clock.
	Time time.Time
	// Method is the request's HTTP method.
	Method string
	// Path is the request's URL path, base path included, such as
	// "/v1/transcripts/42".
	Path string
	// Query is the raw query string, without the "?"; "" when the request
	// had none.
	Query string
	// IdempotencyKey is the request's Idempotency-Key header, if any.
	IdempotencyKey string
	// RequestID is the Request-Id the server answered with.
	RequestID string
	// Status is the HTTP status answered.
	Status int
	// Code is the problem code of an error answer (such as "not_found");
	// "" for a success.
	Code string
}

// requestLog keeps the last maxRecords requests and counts them all.
type requestLog struct {
	mu    sync.Mutex
	reqs  ring[Request]
	count int
}

func newRequestLog() *requestLog { return &requestLog{} }

func (l *requestLog) add(r *http.Request, info *reqInfo, at time.Time) {
	rec := Request{
		Time:           at,
		Method:         r.Method,
		Path:           r.URL.Path,
		Query:          r.URL.RawQuery,
		IdempotencyKey: r.Header.Get("Idempotency-Key"),
		RequestID:      info.id,
		Status:         info.status,
		Code:           info.code,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.reqs.push(rec)
}

// Requests returns the requests the server has answered, oldest first (the
// last 10,000 of them).
func (s *Server) Requests() []Request {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.reqs.all()
}

// RequestCount returns how many requests the server has answered.
func (s *Server) RequestCount() int {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.count
}
