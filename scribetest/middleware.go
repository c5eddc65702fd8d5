package scribetest

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// headerRequestID is on every response (CONTRACT §5).
const headerRequestID = "Request-Id"

// reqInfo is what the middleware learns about a request as it goes through
// the chain; the request log keeps it.
type reqInfo struct {
	id     string
	at     time.Time // when the request arrived, by the server's clock
	code   string    // the problem code answered, if any
	status int
	// path is the request's path when the router matched it to an
	// operation's path without an id: the server's own copy, which the
	// request log keeps instead of copying the request's (loggedPath).
	path string

	// authenticate's verdict, kept so that the rate limiter and the
	// operation share one verification of the token.
	authed      bool
	caller      *principal
	authProblem *problem

	// call is the operation's call (routes.go), kept here so that it comes
	// with requestID's one allocation per request rather than one of its own.
	call call
}

// reqState is what requestID allocates per request, in one allocation: the
// reqInfo and the statusWriter that carries it. The handlers behind
// requestID reach the reqInfo through the statusWriter they are given
// (infoOf), not through the request's context: attaching it to the context
// would take r.WithContext, a copy of the whole request on every request.
type reqState struct {
	info reqInfo
	sw   statusWriter
	// idHeader is the Request-Id header's value slice.
	idHeader [1]string
}

// infoOf returns the reqInfo requestID attached to w, the request's
// statusWriter; a request that did not come through requestID (a handler
// test calling a handler directly) gets a fresh one.
func infoOf(w http.ResponseWriter) *reqInfo {
	if sw, ok := w.(*statusWriter); ok && sw.info != nil {
		return sw.info
	}
	return &reqInfo{}
}

// requestTime is the server's time for the request: when it arrived, read
// once by requestID (the clock can cost a system call), or now for a
// request that did not come through requestID.
func (s *Server) requestTime(info *reqInfo) time.Time {
	if info.at.IsZero() {
		return s.clock.Now()
	}
	return info.at
}

// newRequestID returns "req_" and 26 random characters of the RFC 4648
// base32 alphabet (128 random bits), the form crypto/rand.Text gives. A
// request id is not a secret, only unique: it comes from math/rand/v2's
// runtime generator (ChaCha8, seeded by the system), which costs no system
// call, in one allocation.
func newRequestID() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b [4 + 26]byte
	copy(b[:], "req_")
	for half := range 2 {
		v := rand.Uint64()
		for i := range 13 { // 12 characters of 5 bits, one of the last 4
			b[4+13*half+i] = alphabet[v&31]
			v >>= 5
		}
	}
	return string(b[:])
}

// statusWriter remembers the status a handler wrote, and carries the
// request's reqInfo (infoOf).
type statusWriter struct {
	http.ResponseWriter
	status int
	info   *reqInfo
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
		at := s.clock.Now()
		st := &reqState{info: reqInfo{id: newRequestID(), at: at}, sw: statusWriter{ResponseWriter: w}}
		info, sw := &st.info, &st.sw
		sw.info = info
		st.idHeader[0] = info.id
		w.Header()[headerRequestID] = st.idHeader[:]
		defer func() {
			info.status = sw.status
			s.log.add(r, info, at)
		}()
		if p := checkRequestSize(r); p != nil {
			writeProblem(sw, r, p)
			return
		}
		next.ServeHTTP(sw, r)
	})
}

// Limits on the request head, checked before anything else looks at the
// request (docs/server.md, "Hostile requests"). They sit well below the
// http.Server's MaxHeaderBytes (maxHeadBytes), so that what exceeds them is
// answered here, as problem+json, and not by net/http's plain-text 431.
const (
	// maxURLBytes bounds the request target (path and query): the 8000
	// octets RFC 9110 §4.1 asks every server to support, rounded up.
	maxURLBytes = 8 << 10
	// maxHeaderBytes bounds the header fields, names and values together:
	// room for an 8 KiB installation JWT (CONTRACT §4) several times over.
	maxHeaderBytes = 32 << 10
	// maxHeadBytes is the http.Server's MaxHeaderBytes: net/http answers a
	// head larger than this (plus its 4 KiB of slack) with its own
	// plain-text 431 before any handler runs, and closes the connection.
	maxHeadBytes = 1 << 20
)

// Problem codes of the two head limits; the service adds them to the codes
// of CONTRACT §5 ("new codes may be added").
const (
	codeURITooLong      = "uri_too_long"
	codeHeadersTooLarge = "headers_too_large"
)

// checkRequestSize answers 414 for a request target over maxURLBytes and 431
// for header fields over maxHeaderBytes.
func checkRequestSize(r *http.Request) *problem {
	target := len(r.RequestURI)
	if target == 0 { // a request built in a test, not read from the wire
		target = len(r.URL.RequestURI())
	}
	if target > maxURLBytes {
		return newProblem(http.StatusRequestURITooLong, codeURITooLong,
			fmt.Sprintf("the request target (path and query) is %d bytes; at most %d are accepted", target, maxURLBytes))
	}
	n := len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + len(": \r\n")
		}
	}
	if n > maxHeaderBytes {
		return newProblem(http.StatusRequestHeaderFieldsTooLarge, codeHeadersTooLarge,
			fmt.Sprintf("the header fields are %d bytes; at most %d are accepted", n, maxHeaderBytes))
	}
	return nil
}

// recoverer turns a panic into a 500 internal_error problem, so that even a
// bug answers in the contract's shape with a request id. A panic after the
// response has started cannot be answered; the connection is dropped.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Behind requestID, w is already the request's statusWriter, fresh
		// for this request: it tells whether the response has started
		// without another allocation.
		sw, ok := w.(*statusWriter)
		if !ok {
			sw = &statusWriter{ResponseWriter: w}
		}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			info := infoOf(sw)
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

// faults answers a request with the first injected Fault that matches it
// (see InjectFault), before the request is authenticated, rate limited or
// performed: a faulted POST does no work. Requests no fault matches pass
// through; with no fault pending that costs one atomic load.
func (s *Server) faults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(w)
		f, ok := s.injected.take(r, s.basePath, s.requestTime(info), info.id)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		s.serveFault(w, r, f, next)
	})
}

// rateLimit counts the requests of each credential holder (a developer, an
// installation) in windows of the server's clock when WithRateLimit is
// given, announces the holder's quota (RateLimit-Limit, RateLimit-Remaining,
// RateLimit-Reset in seconds) and answers 429 rate_limited with Retry-After
// once the quota is spent. A request without a valid credential is not
// counted and carries no RateLimit headers: the operation answers its 401.
//
// Without WithRateLimit nothing is counted, and every answer announces the
// fixed quota of the contract's examples: 1000 requests, all remaining,
// resetting at the next minute of the server's clock.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			now := s.requestTime(infoOf(w))
			quota{limit: defaultRateLimit, remaining: defaultRateLimit, reset: untilWindowEnd(now, defaultRateWindow)}.announce(w.Header())
			next.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(w)
		caller, p := s.authenticate(info, r)
		if p != nil {
			next.ServeHTTP(w, r)
			return
		}
		q := s.limiter.take(caller.scope(), s.requestTime(info))
		q.announce(w.Header())
		if !q.allowed {
			writeProblem(w, r, rateLimited(q))
			return
		}
		next.ServeHTTP(w, r)
	})
}
