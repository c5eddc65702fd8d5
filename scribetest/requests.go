package scribetest

import (
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/index"
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
const TruncatedMarker = index.TruncatedMarker

// Requests returns the requests answered, oldest first (the last 10,000).
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
