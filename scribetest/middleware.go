package scribetest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// headerRequestID is on every response (CONTRACT §5).
const headerRequestID = "Request-Id"

// reqInfo is what the middleware learns about a request as it goes through
// the chain; the request log keeps it.
type reqInfo struct {
	id     string
	code   string // the problem code answered, if any
	status int
}

type infoKey struct{}

// infoOf returns the request's reqInfo; a request that did not come through
// requestID (a handler test calling a handler directly) gets a fresh one.
func infoOf(r *http.Request) *reqInfo {
	if info, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		return info
	}
	return &reqInfo{}
}

// newRequestID returns "req_" and 26 random base32 characters.
func newRequestID() string { return "req_" + rand.Text() }

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestID is the outermost middleware: it gives the request an id, sets
// the Request-Id header before anything can answer, and logs the request
// once it is answered.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &reqInfo{id: newRequestID()}
		at := s.clock.Now()
		w.Header().Set(headerRequestID, info.id)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			info.status = sw.status
			s.log.add(r, info, at)
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
	})
}

// recoverer turns a panic into a 500 internal_error problem, so that even a
// bug answers in the contract's shape with a request id. A panic after the
// response has started cannot be answered; the connection is dropped.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			info := infoOf(r)
			s.logger.Error("scribetest: recovered a panic", "request_id", info.id, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if sw.status != 0 {
				panic(http.ErrAbortHandler)
			}
			writeProblem(sw, r, newProblem(http.StatusInternalServerError, scribe.CodeInternalError,
				"the server failed; report the request id"))
		}()
		next.ServeHTTP(sw, r)
	})
}

// faults is where fault injection (scripted 5xx answers, delays, dropped
// connections) will slot in. For now it passes every request through.
func (s *Server) faults(next http.Handler) http.Handler { return next }

// Rate-limit headers announced on every answer. Limits are not enforced yet
// (follow-up work slots into rateLimit); the headers state the quota a
// client may plan with.
const (
	rateLimitQuota  = 1000
	rateLimitWindow = time.Minute
)

// rateLimit announces the quota (RateLimit-Limit, RateLimit-Remaining,
// RateLimit-Reset in seconds). Counting per token and answering 429 with
// Retry-After will slot in here.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := s.clock.Now()
		reset := now.Truncate(rateLimitWindow).Add(rateLimitWindow).Sub(now)
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(rateLimitQuota))
		h.Set("RateLimit-Remaining", strconv.Itoa(rateLimitQuota))
		h.Set("RateLimit-Reset", strconv.Itoa(int((reset+time.Second-1)/time.Second)))
		next.ServeHTTP(w, r)
	})
}
