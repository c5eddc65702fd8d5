package scribetest

import (
	"fmt"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/faults"
)

// Fault is a failure the server injects into the requests that match it,
// for testing a client's retry code (docs/server.md, "Faults"). It fires
// before anything else happens to the request, authentication included, so a
// faulted request does no work: a faulted POST creates nothing.
type Fault struct {
	Method string // such as "POST"; empty matches every method
	// Path is relative to the base path, as api/openapi.yaml writes it:
	// exact ("/plugins/42") or with {name} segments matching one segment
	// ("/plugins/{id}"), the last possibly {name...} matching the rest.
	// Empty matches every path.
	Path string
	// Times is how many matching requests the fault applies to: 0 means 1,
	// a negative number every one until ClearFaults.
	Times int
	// Status is 429, 500, 502, 503 or 504, answered with the contract's
	// problem document and a Request-Id; 0 answers nothing by itself.
	Status int
	// RetryAfter, rounded up to whole seconds, is sent as Retry-After with
	// Status; a 429 always carries one ("0" when RetryAfter is 0).
	RetryAfter time.Duration
	// Drop closes the connection without answering; it excludes Status.
	Drop bool
	// Delay is a wait in real time before the answer, the drop, or (for a
	// fault with neither) serving the request; it ends if the client gives
	// up.
	Delay time.Duration
}

// FiredFault is one use of an injected Fault.
type FiredFault struct {
	Fault     Fault     // as injected
	Time      time.Time // by the server's clock
	Method    string    // the request's, bounded as in Request
	Path      string    // the request's URL path, base path included
	RequestID string    // the request's Request-Id
}

// InjectFault makes the server fail the next f.Times requests that match f.
// A request fires at most one fault, the first injected that matches. It
// returns an error, injecting nothing, for a fault the server cannot play
// (an unknown Status, Drop with Status, a negative duration, a bad Path) or
// one that does nothing.
func (s *Server) InjectFault(f Fault) error { return s.faults.Add(faults.Fault(f), s.basePath) }

// FailNext makes the next n (at least 1) requests fail with status: it is
// InjectFault(Fault{Times: n, Status: status}).
func (s *Server) FailNext(n, status int) error {
	if n < 1 {
		return fmt.Errorf("scribetest: FailNext: n is %d; it must be at least 1 (use InjectFault with a negative Times to fail every request)", n)
	}
	return s.InjectFault(Fault{Times: n, Status: status})
}

// ClearFaults removes every fault not yet used up.
func (s *Server) ClearFaults() { s.faults.Clear() }

// FiredFaults returns one entry per faulted request, oldest first (the
// last 10,000).
func (s *Server) FiredFaults() []FiredFault {
	fired := s.faults.Fired()
	out := make([]FiredFault, len(fired))
	for i, f := range fired {
		out[i] = FiredFault{Fault: Fault(f.Fault), Time: f.Time, Method: f.Method, Path: f.Path, RequestID: f.RequestID}
	}
	return out
}
