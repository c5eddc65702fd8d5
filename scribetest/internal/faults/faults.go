// Package faults holds the failures a test injects (scribetest.Fault), which
// requests each matches, and the record of those that fired; the HTTP layer
// plays them.
package faults

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest/internal/index"
)

// Fault is scribetest.Fault.
type Fault struct {
	Method     string
	Path       string
	Times      int
	Status     int
	RetryAfter time.Duration
	Drop       bool
	Delay      time.Duration
}

// Fired is one use of a fault.
type Fired struct {
	Fault     Fault
	Time      time.Time
	Method    string
	Path      string
	RequestID string
}

// Codes are the transient failures the contract declares on every operation.
var Codes = map[int]string{
	http.StatusTooManyRequests:     scribe.CodeRateLimited,
	http.StatusInternalServerError: scribe.CodeInternalError,
	http.StatusBadGateway:          scribe.CodeBadGateway,
	http.StatusServiceUnavailable:  scribe.CodeServiceUnavailable,
	http.StatusGatewayTimeout:      scribe.CodeGatewayTimeout,
}

// pending is an injected fault, parsed, with what is left of its Times.
type pending struct {
	f       Fault
	method  string
	pattern []string // path segments; nil matches every path
	left    int      // < 0: unlimited
}

// Queue holds the injected faults in order; the zero value is ready.
type Queue struct {
	mu      sync.Mutex
	pending []*pending
	fired   index.Ring[Fired]
}

// Add injects f, or says why the server cannot play it.
func (q *Queue) Add(f Fault, basePath string) error {
	p, err := parse(f, basePath)
	if err != nil {
		return fmt.Errorf("scribetest: InjectFault: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, p)
	return nil
}

func parse(f Fault, basePath string) (*pending, error) {
	if _, ok := Codes[f.Status]; !ok && f.Status != 0 {
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
	p := &pending{f: f, method: strings.ToUpper(f.Method), left: f.Times}
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
func (p *pending) matches(method, path string) bool {
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
func (q *Queue) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = nil
}

// Take uses the first pending fault that matches r once, and records it.
func (q *Queue) Take(r *http.Request, basePath string, now time.Time, requestID string) (Fault, bool) {
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
		q.fired.Push(Fired{Fault: p.f, Time: now, Method: index.Truncate(r.Method, index.MaxMethod),
			Path: index.Truncate(r.URL.Path, index.MaxURLPart), RequestID: requestID})
		return p.f, true
	}
	return Fault{}, false
}

// Fired returns the faults that fired, oldest first.
func (q *Queue) Fired() []Fired {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fired.All()
}
