package scribetest

import (
	"cmp"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
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
	// Method restricts the fault to requests with this method, such as "POST";
	// empty matches every method.
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
	// transient failures the contract declares on every operation. The answer
	// is the contract's problem document with its code (rate_limited,
	// internal_error, bad_gateway, service_unavailable, gateway_timeout) and a
	// Request-Id. 0 answers nothing by itself: the fault only drops or delays.
	Status int
	// RetryAfter, rounded up to whole seconds, is sent as Retry-After with
	// Status. A 429 always carries Retry-After (the contract requires it), "0"
	// when RetryAfter is 0.
	RetryAfter time.Duration
	// Drop closes the connection without answering, as a crashed server or a
	// broken network would: the client sees a connection error. Drop excludes
	// Status.
	Drop bool
	// Delay is how long, in real time (not the server's Clock), to wait before
	// the fault's answer or drop, or, for a fault with neither, before serving
	// the request normally. The wait ends early when the client gives up (the
	// request's context is done); nothing is answered then.
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
	// Path is the request's URL path, base path included, as in Request.Path.
	Path string
	// RequestID is the request's Request-Id, as the request log has it.
	RequestID string
}

// InjectFault makes the server fail the next f.Times requests that match f
// (see Fault). Faults are tried in the order they were injected; a request
// takes the first that matches it, and one request fires at most one fault. It
// returns a *FaultError, and injects nothing, when f is not a fault the
// server can play: an unknown Status, Drop with a Status, a negative
// duration, a Path that is not a path relative to the base path, or a fault
// that does nothing at all.
func (s *Server) InjectFault(f Fault) error { return s.faults.add(f, s.cfg.basePath) }

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
func (s *Server) ClearFaults() { s.faults.clear() }

// FiredFaults returns the faults that have fired, oldest first (the last
// 10,000 of them): one entry per faulted request.
func (s *Server) FiredFaults() []FiredFault { return s.faults.fired.All() }

// PendingFaults returns the faults not used up, in the order they are
// tried, each with Times set to what is left of it (negative: every
// matching request until ClearFaults).
func (s *Server) PendingFaults() []Fault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]Fault, len(s.faults.pending))
	for i, p := range s.faults.pending {
		out[i], out[i].Times = p.f, p.left
	}
	return out
}

// pendingFault is an injected fault, parsed, with what is left of its Times.
type pendingFault struct {
	f      Fault
	method string
	path   *regexp.Regexp // the Path's segments, wildcards and all; nil matches every path
	left   int            // < 0: unlimited
}

// faults holds the injected faults in order and the record of those that
// fired; the zero value is ready.
type faults struct {
	mu      sync.Mutex // guards pending
	pending []*pendingFault
	fired   ring[FiredFault]
}

// FaultError is the error of InjectFault for a fault the server cannot
// play: which of its fields is wrong ("" for the fault as a whole) and why.
type FaultError struct {
	// Field is the Fault field at fault, such as "Status"; "" for the
	// fault as a whole.
	Field string
	// Reason says what is wrong with it, and what to give instead.
	Reason string
}

// Error says which field is wrong and why, as InjectFault reports it.
func (e *FaultError) Error() string {
	if e.Field == "" {
		return "scribetest: InjectFault: the fault " + e.Reason
	}
	return "scribetest: InjectFault: the fault's " + e.Field + " " + e.Reason
}

// add injects f, or says why the server cannot play it.
func (q *faults) add(f Fault, basePath string) error {
	p, err := parse(f, basePath)
	if err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, p)
	return nil
}

func parse(f Fault, basePath string) (*pendingFault, error) {
	bad := func(field, format string, args ...any) (*pendingFault, error) {
		return nil, &FaultError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case f.Status != 0 && httpapi.FailureCodes[f.Status] == "":
		return bad("Status", "%d is not one the contract declares for a transient failure; use 429, 500, 502, 503 or 504", f.Status)
	case f.Drop && f.Status != 0:
		return bad("Drop", "excludes a status (%d): a dropped connection answers nothing", f.Status)
	case f.Drop && f.RetryAfter != 0:
		return bad("Drop", "excludes a Retry-After: a dropped connection answers nothing")
	case f.RetryAfter < 0:
		return bad("RetryAfter", "must not be negative")
	case f.Delay < 0:
		return bad("Delay", "must not be negative")
	case f.Status == 0 && !f.Drop && f.Delay == 0:
		return bad("", "does nothing; give it a status, a drop or a delay")
	case f.Status == 0 && f.RetryAfter != 0:
		return bad("RetryAfter", "needs a status to be sent with")
	case strings.ContainsAny(f.Method, " \t/"):
		return bad("Method", "%q is not an HTTP method; write it alone, such as POST, and the path apart", f.Method)
	case f.Path != "" && (!strings.HasPrefix(f.Path, "/") || strings.ContainsAny(f.Path, "?# \t")):
		return bad("Path", "%q must be a path beginning with /, without query or spaces, such as /plugins/{id}", f.Path)
	case basePath != "" && (f.Path == basePath || strings.HasPrefix(f.Path, basePath+"/")):
		return bad("Path", "%q includes the base path %s; write it relative to the base path, as %q", f.Path, basePath, strings.TrimPrefix(f.Path, basePath))
	}
	p := &pendingFault{f: f, method: strings.ToUpper(f.Method), left: cmp.Or(f.Times, 1)}
	if f.Path == "" {
		return p, nil
	}
	segs := strings.Split(f.Path[1:], "/")
	re := "(?s)^" // . matches a decoded newline too
	for i, seg := range segs {
		name := strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}")
		switch {
		case !strings.ContainsAny(seg, "{}"):
			re += "/" + regexp.QuoteMeta(seg)
		case len(name) != len(seg)-2 || strings.TrimSuffix(name, "...") == "" || strings.ContainsAny(name, "{}") ||
			(strings.HasSuffix(name, "...") && i != len(segs)-1):
			return bad("Path", "%q: segment %q must be a whole {name} wildcard, or {name...} as the last segment", f.Path, seg)
		case strings.HasSuffix(name, "..."):
			re += "/.*" // the rest of the path, even empty
		default:
			re += "/[^/]+"
		}
	}
	p.path = regexp.MustCompile(re + "$")
	return p, nil
}

// matches reports whether p applies to method and path (base path removed).
func (p *pendingFault) matches(method, path string) bool {
	return (p.method == "" || p.method == method) && (p.path == nil || p.path.MatchString(path))
}

// clear removes every fault not yet used up.
func (q *faults) clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = nil
}

// fault is the API's Config.Fail: it uses the first pending fault that
// matches r once, records it, and says how r is to fail.
func (s *Server) fault(r *http.Request, now time.Time, requestID string) (httpapi.Failure, bool) {
	q, path, basePath := &s.faults, r.URL.Path, s.cfg.basePath
	if basePath != "" {
		rel, ok := strings.CutPrefix(path, basePath)
		if !ok || (rel != "" && rel[0] != '/') {
			rel = "" // outside the base path: only a fault without Path matches
		}
		path = rel
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, p := range q.pending {
		if !p.matches(r.Method, path) {
			continue
		}
		if p.left > 0 {
			if p.left--; p.left == 0 {
				q.pending = append(q.pending[:i], q.pending[i+1:]...)
			}
		}
		q.fired.Push(FiredFault{Fault: p.f, Time: now, Method: truncate(r.Method, maxMethod),
			Path: truncate(r.URL.Path, maxURLPart), RequestID: requestID})
		return httpapi.Failure{Status: p.f.Status, RetryAfter: p.f.RetryAfter, Drop: p.f.Drop, Delay: p.f.Delay}, true
	}
	return httpapi.Failure{}, false
}
