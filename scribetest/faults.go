package scribetest

import (
	"fmt"

	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
)

// Fault is a failure injected into the requests that match it
// (docs/server.md, "Faults"): Method and Path filter them, Times says how
// many it applies to (0 is once, negative until ClearFaults), and Status,
// RetryAfter, Drop and Delay say what the server does instead of serving
// them. It fires before authentication, rate limiting and the operation: a
// faulted request does no work.
type Fault = httpapi.Fault

// FiredFault is one use of an injected Fault: the Fault, when it fired by
// the server's clock, and the request's method, path and Request-Id.
type FiredFault = httpapi.FiredFault

// InjectFault makes the server fail the next f.Times requests that match f;
// a request fires the first fault that matches it, in the order injected. A
// fault the server cannot play is an error saying why. Admin API requests
// (WithAdminAPI) are never faulted.
func (s *Server) InjectFault(f Fault) error { return s.faults.Add(f, s.basePath) }

// FailNext is InjectFault(Fault{Times: n, Status: status}), n at least 1.
func (s *Server) FailNext(n, status int) error {
	if n < 1 {
		return fmt.Errorf("scribetest: FailNext: n is %d; it must be at least 1 (use InjectFault with a negative Times to fail every request)", n)
	}
	return s.InjectFault(Fault{Times: n, Status: status})
}

// ClearFaults removes every fault not yet used up.
func (s *Server) ClearFaults() { s.faults.Clear() }

// FiredFaults returns the faults fired, oldest first: the last 10,000.
func (s *Server) FiredFaults() []FiredFault { return s.faults.Fired() }
