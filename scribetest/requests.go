package scribetest

import (
	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Request is one request the server answered, as Requests lists it: when it
// arrived by the server's clock, its method, path (base path included) and
// raw query, its Idempotency-Key, and the Request-Id, status and problem
// code answered. It holds no credential. Method is cut to 32 bytes, Path
// and Query to 512, IdempotencyKey to 255; a value cut short ends with
// TruncatedMarker.
type Request = httpapi.Request

// TruncatedMarker ends a value the server kept cut short (see Request).
const TruncatedMarker = state.TruncatedMarker

// Requests returns the requests answered, oldest first: the last 10,000.
// Admin API requests (WithAdminAPI) are not among them.
func (s *Server) Requests() []Request { return s.log.All() }

// RequestCount returns how many requests the server has answered, admin API
// requests aside.
func (s *Server) RequestCount() int { return s.log.Count() }
