package scribetest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	scribe "github.com/scribehq/scribe-go"
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

// faultCodes are the statuses a Fault may answer with, and their codes
// (api/openapi.yaml, components/responses).
var faultCodes = map[int]string{
	http.StatusTooManyRequests:     scribe.CodeRateLimited,
	http.StatusInternalServerError: scribe.CodeInternalError,
	http.StatusBadGateway:          scribe.CodeBadGateway,
	http.StatusServiceUnavailable:  scribe.CodeServiceUnavailable,
	http.StatusGatewayTimeout:      scribe.CodeGatewayTimeout,
}

// InjectFault makes the server fail the next f.Times requests that match f
// (see Fault). Faults are tried in the order they were injected; a request
// takes the first that matches it, and one request fires at most one fault.
// It returns an error, and injects nothing, when f is not a fault the server
// can play: an unknown Status, Drop with a Status, a negative duration, a
// Path that is not a path relative to the base path, or a fault that does
// nothing at all.
func (s *Server) InjectFault(f Fault) error {
	pf, err := newPendingFault(f, s.basePath)
	if err != nil {
		return err
	}
	s.injected.add(pf)
	return nil
}

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
func (s *Server) ClearFaults() { s.injected.clear() }

// FiredFaults returns the faults that have fired, oldest first (the last
// 10,000 of them): one entry per faulted request.
func (s *Server) FiredFaults() []FiredFault {
	q := &s.injected
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fired.all()
}

// pendingFault is an injected fault with its parsed path and what is left of
// its Times.
type pendingFault struct {
	f       Fault
	method  string
	pattern []string // path segments; nil matches every path
	left    int      // < 0: unlimited
}

func newPendingFault(f Fault, basePath string) (*pendingFault, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("scribetest: InjectFault: "+format, args...)
	}
	if _, ok := faultCodes[f.Status]; !ok && f.Status != 0 {
		return nil, bad("Status %d is not one the contract declares for a transient failure; use 429, 500, 502, 503 or 504", f.Status)
	}
	switch {
	case f.Drop && f.Status != 0:
		return nil, bad("Drop and Status %d exclude each other: a dropped connection answers nothing", f.Status)
	case f.Drop && f.RetryAfter != 0:
		return nil, bad("Drop and RetryAfter exclude each other: a dropped connection answers nothing")
	case f.RetryAfter < 0 || f.Delay < 0:
		return nil, bad("RetryAfter (%s) and Delay (%s) must not be negative", f.RetryAfter, f.Delay)
	case f.Status == 0 && !f.Drop && f.Delay == 0:
		return nil, bad("the fault does nothing; give a Status, Drop or a Delay")
	case f.Status == 0 && f.RetryAfter != 0:
		return nil, bad("RetryAfter needs a Status to be sent with")
	}
	pf := &pendingFault{f: f, method: strings.ToUpper(f.Method), left: f.Times}
	if pf.left == 0 {
		pf.left = 1
	}
	if strings.ContainsAny(pf.method, " \t/") {
		return nil, bad("Method %q is not an HTTP method; write it alone, such as POST, and the path in Path", f.Method)
	}
	if f.Path == "" {
		return pf, nil
	}
	switch {
	case !strings.HasPrefix(f.Path, "/") || strings.ContainsAny(f.Path, "?# \t"):
		return nil, bad("Path %q must be a path beginning with /, without query or spaces, such as /plugins/{id}", f.Path)
	case basePath != "" && (f.Path == basePath || strings.HasPrefix(f.Path, basePath+"/")):
		return nil, bad("Path %q includes the base path %s; write it relative to the base path, as %q", f.Path, basePath, strings.TrimPrefix(f.Path, basePath))
	}
	pf.pattern = strings.Split(f.Path[1:], "/")
	for i, seg := range pf.pattern {
		if !strings.ContainsAny(seg, "{}") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(seg, "{"), "}")
		if len(name) != len(seg)-2 || strings.TrimSuffix(name, "...") == "" || strings.ContainsAny(name, "{}") ||
			(strings.HasSuffix(name, "...") && i != len(pf.pattern)-1) {
			return nil, bad("Path %q: segment %q must be a whole {name} wildcard, or {name...} as the last segment", f.Path, seg)
		}
	}
	return pf, nil
}

// matches reports whether the request with method and path (base path
// removed) is one pf applies to.
func (pf *pendingFault) matches(method, path string) bool {
	if pf.method != "" && pf.method != method {
		return false
	}
	if pf.pattern == nil {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return false
	}
	for i, seg := range pf.pattern {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "...}") {
			return true // the rest of the path, even empty
		}
		part, tail, more := strings.Cut(rest, "/")
		switch {
		case strings.HasPrefix(seg, "{"):
			if part == "" {
				return false
			}
		case part != seg:
			return false
		}
		if i == len(pf.pattern)-1 {
			return !more
		}
		if !more {
			return false
		}
		rest = tail
	}
	return false
}

// faultQueue holds the injected faults in order and the record of those that
// fired. The zero value is empty and ready.
type faultQueue struct {
	n       atomic.Int64 // len(pending), read without the lock on every request
	mu      sync.Mutex
	pending []*pendingFault
	fired   ring[FiredFault]
}

func (q *faultQueue) add(pf *pendingFault) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, pf)
	q.n.Store(int64(len(q.pending)))
}

func (q *faultQueue) clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = nil
	q.n.Store(0)
}

// take finds the first pending fault that matches r, uses it once and
// records it as fired.
func (q *faultQueue) take(r *http.Request, basePath string, now time.Time, requestID string) (Fault, bool) {
	if q.n.Load() == 0 {
		return Fault{}, false
	}
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
	for i, pf := range q.pending {
		if !pf.matches(r.Method, path) {
			continue
		}
		if pf.left > 0 {
			pf.left--
			if pf.left == 0 {
				q.pending = append(q.pending[:i], q.pending[i+1:]...)
				q.n.Store(int64(len(q.pending)))
			}
		}
		q.fired.push(FiredFault{Fault: pf.f, Time: now, Method: truncate(r.Method, maxLoggedMethod), Path: truncate(r.URL.Path, maxLoggedURLPart), RequestID: requestID})
		return pf.f, true
	}
	return Fault{}, false
}

// serveFault plays f on the request: wait its Delay, then drop the
// connection, answer its Status, or serve the request normally through next.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f Fault, next http.Handler) {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the client gave up; there is no one to answer
		}
	}
	switch {
	case f.Drop:
		dropConnection(w)
	case f.Status != 0:
		writeProblem(w, r, s.faultProblem(f))
	default:
		next.ServeHTTP(w, r)
	}
}

// faultProblem is the answer of an injected fault with a Status.
func (s *Server) faultProblem(f Fault) *problem {
	p := newProblem(f.Status, faultCodes[f.Status],
		fmt.Sprintf("scribetest: injected fault: the test asked this request to fail with %d %s (InjectFault); retry it",
			f.Status, http.StatusText(f.Status)))
	if f.RetryAfter > 0 || f.Status == http.StatusTooManyRequests {
		p = p.with("Retry-After", seconds(f.RetryAfter))
	}
	if f.Status == http.StatusTooManyRequests {
		// The contract's 429 carries the RateLimit headers: the quota is
		// spent until the Retry-After has passed.
		limit := defaultRateLimit
		if s.limiter != nil {
			limit = s.limiter.limit
		}
		p = p.with("RateLimit-Limit", fmt.Sprint(limit)).
			with("RateLimit-Remaining", "0").
			with("RateLimit-Reset", seconds(f.RetryAfter))
	}
	return p
}

// dropConnection closes the request's connection without an answer. Where
// the connection cannot be taken over (HTTP/2, or a ResponseRecorder), the
// handler aborts with http.ErrAbortHandler, which net/http turns into a
// reset stream or a closed connection without logging.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
