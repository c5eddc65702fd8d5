package scribetest

import (
	"fmt"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/faults"
)

// Fault is a failure injected into the requests that match it
// (docs/server.md, "Faults"). It fires before authentication: a faulted
// request does no work.
type Fault struct {
	Method string // such as "POST"; empty matches every method
	// Path, relative to the base path, is exact ("/plugins/42") or a
	// pattern ("/plugins/{id}", "/plugins/{rest...}"); empty matches all.
	Path   string
	Times  int // how many requests it applies to: 0 is 1, < 0 until ClearFaults
	Status int // 429, 500, 502, 503 or 504, as a problem document; 0 answers nothing
	// RetryAfter, rounded up to whole seconds, is sent as Retry-After with
	// Status; a 429 always carries one ("0" when RetryAfter is 0).
	RetryAfter time.Duration
	Drop       bool          // close the connection without answering; excludes Status
	Delay      time.Duration // a real wait before the answer, the drop or the request
}

// FiredFault is one use of an injected Fault.
type FiredFault struct {
	Fault     Fault     // as injected
	Time      time.Time // by the server's clock
	Method    string    // the request's, bounded as in Request
	Path      string    // the request's URL path, base path included
	RequestID string    // the request's Request-Id
}

// InjectFault makes the server fail the next f.Times requests that match f;
// a request fires the first that matches. A fault the server cannot play is
// an error saying why.
func (s *Server) InjectFault(f Fault) error { return s.faults.Add(faults.Fault(f), s.basePath) }

// FailNext is InjectFault(Fault{Times: n, Status: status}), n at least 1.
func (s *Server) FailNext(n, status int) error {
	if n < 1 {
		return fmt.Errorf("scribetest: FailNext: n is %d; it must be at least 1 (use InjectFault with a negative Times to fail every request)", n)
	}
	return s.InjectFault(Fault{Times: n, Status: status})
}

// ClearFaults removes every fault not yet used up.
func (s *Server) ClearFaults() { s.faults.Clear() }

// FiredFaults returns the faults fired, oldest first (the last 10,000).
func (s *Server) FiredFaults() []FiredFault {
	fired := s.faults.Fired()
	out := make([]FiredFault, len(fired))
	for i, f := range fired {
		out[i] = FiredFault{Fault: Fault(f.Fault), Time: f.Time, Method: f.Method, Path: f.Path, RequestID: f.RequestID}
	}
	return out
}
