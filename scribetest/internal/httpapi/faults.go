package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Fault is a failure injected into the requests that match it
// (docs/server.md, "Faults"). It fires before authentication, rate limiting
// and the operation: a faulted request does no work, so a POST retried with
// its Idempotency-Key creates exactly one resource.
type Fault struct {
	// Method, such as "POST", filters the requests; empty matches every
	// method.
	Method string
	// Path, relative to the base path, filters the requests: exact
	// ("/plugins/42") or a pattern where {name} matches one segment and a
	// last {name...} the rest ("/plugins/{id}", "/plugins/{rest...}").
	// Empty matches every path.
	Path string
	// Times is how many requests the fault applies to: 0 is once, a
	// negative number every request until ClearFaults.
	Times int
	// Status is the answer: 429, 500, 502, 503 or 504 (the transient
	// failures the contract declares on every operation), as its problem
	// document. 0 answers nothing of its own: Drop, or Delay alone.
	Status int
	// RetryAfter, rounded up to whole seconds, is sent as Retry-After with
	// Status; a 429 always carries one ("0" when RetryAfter is 0).
	RetryAfter time.Duration
	// Drop closes the connection without an answer; it excludes Status.
	Drop bool
	// Delay is a real wait before the answer, the drop or, with neither,
	// the request served as usual: for testing a client's timeouts.
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

// faultCodes are the problem codes of the transient failures a Fault may answer.
var faultCodes = map[int]string{
	http.StatusTooManyRequests:     scribe.CodeRateLimited,
	http.StatusInternalServerError: scribe.CodeInternalError,
	http.StatusBadGateway:          scribe.CodeBadGateway,
	http.StatusServiceUnavailable:  scribe.CodeServiceUnavailable,
	http.StatusGatewayTimeout:      scribe.CodeGatewayTimeout,
}

// pendingFault is an injected fault, parsed, with what is left of its Times.
type pendingFault struct {
	f       Fault
	method  string
	pattern []string // path segments; nil matches every path
	left    int      // < 0: unlimited
}

// Faults holds the injected faults in order and the record of those that
// fired; the zero value is ready.
type Faults struct {
	mu      sync.Mutex
	pending []*pendingFault
	fired   state.Ring[FiredFault]
}

// Add injects f, or says why the server cannot play it.
func (q *Faults) Add(f Fault, basePath string) error {
	p, err := parse(f, basePath)
	if err != nil {
		return fmt.Errorf("scribetest: InjectFault: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, p)
	return nil
}

func parse(f Fault, basePath string) (*pendingFault, error) {
	if _, ok := faultCodes[f.Status]; !ok && f.Status != 0 {
		return nil, fmt.Errorf("the fault's Status %d is not one the contract declares for a transient failure; use 429, 500, 502, 503 or 504", f.Status)
	}
	switch {
	case f.Drop && f.Status != 0:
		return nil, fmt.Errorf("the fault's Drop and Status %d exclude each other: a dropped connection answers nothing", f.Status)
	case f.Drop && f.RetryAfter != 0:
		return nil, fmt.Errorf("the fault's Drop and RetryAfter exclude each other: a dropped connection answers nothing")
	case f.RetryAfter < 0 || f.Delay < 0:
		return nil, fmt.Errorf("the fault's RetryAfter (%s) and Delay (%s) must not be negative", f.RetryAfter, f.Delay)
	case f.Status == 0 && !f.Drop && f.Delay == 0:
		return nil, fmt.Errorf("the fault does nothing; give a Status, Drop or a Delay")
	case f.Status == 0 && f.RetryAfter != 0:
		return nil, fmt.Errorf("the fault's RetryAfter needs a Status to be sent with")
	}
	p := &pendingFault{f: f, method: strings.ToUpper(f.Method), left: f.Times}
	if p.left == 0 {
		p.left = 1
	}
	if strings.ContainsAny(p.method, " \t/") {
		return nil, fmt.Errorf("the fault's Method %q is not an HTTP method; write it alone, such as POST, and the path in Path", f.Method)
	}
	if f.Path == "" {
		return p, nil
	}
	switch {
	case !strings.HasPrefix(f.Path, "/") || strings.ContainsAny(f.Path, "?# \t"):
		return nil, fmt.Errorf("the fault's Path %q must be a path beginning with /, without query or spaces, such as /plugins/{id}", f.Path)
	case basePath != "" && (f.Path == basePath || strings.HasPrefix(f.Path, basePath+"/")):
		return nil, fmt.Errorf("the fault's Path %q includes the base path %s; write it relative to the base path, as %q", f.Path, basePath, strings.TrimPrefix(f.Path, basePath))
	}
	p.pattern = strings.Split(f.Path[1:], "/")
	for i, seg := range p.pattern {
		if !strings.ContainsAny(seg, "{}") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}")
		if len(name) != len(seg)-2 || strings.TrimSuffix(name, "...") == "" || strings.ContainsAny(name, "{}") ||
			(strings.HasSuffix(name, "...") && i != len(p.pattern)-1) {
			return nil, fmt.Errorf("the fault's Path %q: segment %q must be a whole {name} wildcard, or {name...} as the last segment", f.Path, seg)
		}
	}
	return p, nil
}

// matches reports whether p applies to method and path (base path removed).
func (p *pendingFault) matches(method, path string) bool {
	if p.method != "" && p.method != method {
		return false
	}
	if p.pattern == nil {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return false
	}
	for i, seg := range p.pattern {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "...}") {
			return true // the rest of the path, even empty
		}
		part, tail, more := strings.Cut(rest, "/")
		if (strings.HasPrefix(seg, "{") && part == "") || (!strings.HasPrefix(seg, "{") && part != seg) {
			return false
		}
		if i == len(p.pattern)-1 || !more {
			return i == len(p.pattern)-1 && !more
		}
		rest = tail
	}
	return false
}

// Clear removes every fault not yet used up.
func (q *Faults) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = nil
}

// Take uses the first pending fault that matches r once, and records it.
func (q *Faults) Take(r *http.Request, basePath string, now time.Time, requestID string) (Fault, bool) {
	path := r.URL.Path
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
		q.fired.Push(FiredFault{Fault: p.f, Time: now, Method: state.Truncate(r.Method, state.MaxMethod),
			Path: state.Truncate(r.URL.Path, state.MaxURLPart), RequestID: requestID})
		return p.f, true
	}
	return Fault{}, false
}

// Fired returns the faults that fired, oldest first.
func (q *Faults) Fired() []FiredFault {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fired.All()
}
