package scribetest

import (
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/index"
)

// Request is one request the server answered, as its request log keeps it.
// It holds no credential. Every field is bounded, so that the log stays
// small whatever clients send: Method is cut to 32 bytes, Path and Query to
// 512 bytes each, IdempotencyKey to its limit of 255; a cut value ends with
// TruncatedMarker.
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

// TruncatedMarker ends a value the server kept cut short (see Request).
const TruncatedMarker = index.TruncatedMarker

// Requests returns the requests the server has answered, oldest first (the
// last 10,000 of them).
func (s *Server) Requests() []Request {
	recs := s.log.All()
	out := make([]Request, len(recs))
	for i, r := range recs {
		out[i] = Request(r)
	}
	return out
}

// RequestCount returns how many requests the server has answered.
func (s *Server) RequestCount() int { return s.log.Count() }
