package scribetest

import (
	"fmt"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/faults"
)

// Fault is a failure the server injects into the requests that match it, for
// testing a client's retry code: answer 503 twice and then serve normally,
// drop the connection of the next POST, answer slowly. Inject it with
// InjectFault or FailNext.
//
// A fault is decided before anything else happens to the request: before
// authentication, rate limiting and the operation itself. A faulted request
// does no work (a faulted POST creates nothing), which is what a client
// retrying with its Idempotency-Key relies on.
type Fault struct {
	// Method restricts the fault to requests with this method, such as
	// "POST"; empty matches every method.
	Method string
	// Path restricts the fault to one path, relative to the base path, as
	// api/openapi.yaml writes it: exact ("/plugins/42") or a pattern whose
	// {name} segments match any one segment ("/plugins/{id}") and whose last
	// segment may be {name...} to match the rest of the path. Empty matches
	// every path.
	Path string
	// Times is how many matching requests the fault applies to before it is
	// used up: 0 means 1, and a negative number means every matching request
	// until ClearFaults.
	Times int
	// Status is the status to answer with: 429, 500, 502, 503 or 504, the
	// transient failures the contract declares on every operation. The
	// answer is the contract's problem document with its code
	// (rate_limited, internal_error, bad_gateway, service_unavailable,
	// gateway_timeout) and a Request-Id. 0 answers nothing by itself: the
	// fault only drops or delays.
	Status int
	// RetryAfter, rounded up to whole seconds, is sent as Retry-After with
	// Status. A 429 always carries Retry-After (the contract requires it),
	// "0" when RetryAfter is 0.
	RetryAfter time.Duration
	// Drop closes the connection without answering, as a crashed server or
	// a broken network would: the client sees a connection error. Drop
	// excludes Status.
	Drop bool
	// Delay is how long, in real time (not the server's Clock), to wait
	// before the fault's answer or drop, or, for a fault with neither,
	// before serving the request normally. The wait ends early when the
	// client gives up (the request's context is done); nothing is answered
	// then.
	Delay time.Duration
}

// FiredFault is one use of an injected Fault: which fault, on which request.
type FiredFault struct {
	// Fault is the fault as injected (Times as given).
	Fault Fault
	// Time is when it fired, by the server's clock.
	Time time.Time
	// Method is the request's HTTP method, bounded as in Request.
	Method string
	// Path is the request's URL path, base path included, as in
	// Request.Path.
	Path string
	// RequestID is the request's Request-Id, as the request log has it.
	RequestID string
}

// InjectFault makes the server fail the next f.Times requests that match f
// (see Fault). Faults are tried in the order they were injected; a request
// takes the first that matches it, and one request fires at most one fault.
// It returns an error, and injects nothing, when f is not a fault the server
// can play: an unknown Status, Drop with a Status, a negative duration, a
// Path that is not a path relative to the base path, or a fault that does
// nothing at all.
func (s *Server) InjectFault(f Fault) error { return s.faults.Add(faults.Fault(f), s.basePath) }

// FailNext makes the next n requests, whatever their method and path, fail
// with status (429, 500, 502, 503 or 504); it is InjectFault(Fault{Times: n,
// Status: status}). n must be at least 1.
func (s *Server) FailNext(n, status int) error {
	if n < 1 {
		return fmt.Errorf("scribetest: FailNext: n is %d; it must be at least 1 (use InjectFault with a negative Times to fail every request)", n)
	}
	return s.InjectFault(Fault{Times: n, Status: status})
}

// ClearFaults removes every fault not yet used up. FiredFaults still reports
// those that fired.
func (s *Server) ClearFaults() { s.faults.Clear() }

// FiredFaults returns the faults that have fired, oldest first (the last
// 10,000 of them): one entry per faulted request.
func (s *Server) FiredFaults() []FiredFault {
	fired := s.faults.Fired()
	out := make([]FiredFault, len(fired))
	for i, f := range fired {
		out[i] = FiredFault{Fault: Fault(f.Fault), Time: f.Time, Method: f.Method, Path: f.Path, RequestID: f.RequestID}
	}
	return out
}
