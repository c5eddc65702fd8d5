package httpapi

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/redact"
)

// reqInfo is what the middleware learns of a request, kept in the statusWriter (infoOf).
type reqInfo struct {
	id      string
	at      time.Time  // when the request arrived, by the server's clock
	code    string     // the problem code answered, if any
	authed  bool       // authenticate's verdict is below, shared by the rate limit and the operation
	caller  *principal // with a refusal, who a verified token names (or nil): for the log only
	refusal *problem
}

// statusWriter remembers the status written and carries the reqInfo.
type statusWriter struct {
	http.ResponseWriter
	status int
	info   reqInfo
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

// infoOf returns the request's reqInfo (a fresh one outside requestID).
func infoOf(w http.ResponseWriter) *reqInfo {
	if sw, ok := w.(*statusWriter); ok {
		return &sw.info
	}
	return &reqInfo{}
}

// Limits on the request head, below the http.Server's MaxHeadBytes (where net/http
// answers a plain-text 431), so that they are answered as problem+json.
const (
	maxURLBytes    = 8 << 10  // RFC 9110 §4.1's 8000 octets, rounded up
	maxHeaderBytes = 32 << 10 // an 8 KiB installation JWT several times over
	MaxHeadBytes   = 1 << 20
)

// checkHead refuses a target over 8 KiB (414) and headers over 32 KiB (431).
func checkHead(r *http.Request) *problem {
	target := len(r.RequestURI)
	if target == 0 { // a request built in a test, not read from the wire
		target = len(r.URL.RequestURI())
	}
	if target > maxURLBytes {
		return newProblem(http.StatusRequestURITooLong, scribe.CodeURITooLong,
			fmt.Sprintf("the request target (path and query) is %d bytes; at most %d are accepted", target, maxURLBytes))
	}
	n := len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + len(": \r\n")
		}
	}
	if n > maxHeaderBytes {
		return newProblem(http.StatusRequestHeaderFieldsTooLarge, scribe.CodeHeadersTooLarge,
			fmt.Sprintf("the header fields are %d bytes; at most %d are accepted", n, maxHeaderBytes))
	}
	return nil
}

// requestID sets the Request-Id, refuses an oversized head and logs the request.
func (a *API) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, info: reqInfo{id: "req_" + rand.Text(), at: a.cfg.Now()}}
		w.Header()["Request-Id"] = []string{sw.info.id}
		defer func() {
			installation := ""
			if c := sw.info.caller; c != nil && c.Kind == installationJWT {
				installation = c.Installation.UUID
			}
			a.cfg.Log(r, sw.info.at, sw.info.id, sw.status, sw.info.code, installation, time.Since(start))
		}()
		if p := checkHead(r); p != nil {
			writeProblem(sw, p)
			return
		}
		next.ServeHTTP(sw, r)
	})
}

// recoverer answers a panic with a 500, logged redacted (once answering: a drop).
func (a *API) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			a.cfg.Logger.Error("scribetest: recovered a panic", "request_id", infoOf(w).id,
				"panic", redact.Text(fmt.Sprint(v)), "stack", string(debug.Stack()))
			if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
				panic(http.ErrAbortHandler)
			}
			writeProblem(w, internalError("the server failed"))
		}()
		next.ServeHTTP(w, r)
	})
}

// Failure is how a request fails instead of being served (scribetest.Fault).
type Failure struct {
	Status     int           // one of FailureCodes, answered as its problem document; 0: none
	RetryAfter time.Duration // sent, rounded up to whole seconds, as Retry-After with Status
	Drop       bool          // close the connection without an answer
	Delay      time.Duration // a real wait before the answer, the drop or the request served
}

// FailureCodes are the problem codes of the transient failures the contract
// declares on every operation, by status: those a Failure may answer.
var FailureCodes = map[int]string{
	http.StatusTooManyRequests:     scribe.CodeRateLimited,
	http.StatusInternalServerError: scribe.CodeInternalError,
	http.StatusBadGateway:          scribe.CodeBadGateway,
	http.StatusServiceUnavailable:  scribe.CodeServiceUnavailable,
	http.StatusGatewayTimeout:      scribe.CodeGatewayTimeout,
}

// faults makes the request fail as Config.Fail says, if it says so.
func (a *API) faults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(w)
		f, ok := a.cfg.Fail(r, info.at, info.id)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
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
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil { // HTTP/2 or a recorder: net/http resets the stream
				panic(http.ErrAbortHandler)
			}
			_ = conn.Close()
		case f.Status != 0:
			writeProblem(w, a.faultProblem(f))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// faultProblem is the answer of a Failure with a Status.
func (a *API) faultProblem(f Failure) *problem {
	p := newProblem(f.Status, FailureCodes[f.Status],
		fmt.Sprintf("scribetest: injected fault: the test asked this request to fail with %d %s (InjectFault); retry it",
			f.Status, http.StatusText(f.Status)))
	if f.RetryAfter > 0 || f.Status == http.StatusTooManyRequests {
		p = p.with("Retry-After", seconds(f.RetryAfter))
	}
	if f.Status == http.StatusTooManyRequests {
		// The contract's 429 carries the RateLimit headers, quota spent.
		limit := announcedLimit
		if l := a.cfg.Limiter(); l != nil {
			limit = l.Limit
		}
		p = p.with("RateLimit-Limit", strconv.Itoa(limit)).with("RateLimit-Remaining", "0").
			with("RateLimit-Reset", seconds(f.RetryAfter))
	}
	return p
}

// rateLimit counts each holder's requests, announces the quota and answers 429
// once it is spent; without a limiter it announces the contract's example quota.
func (a *API) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, l := infoOf(w), a.cfg.Limiter()
		if l == nil { // the contract's example quota, all of it remaining
			announce(w.Header(), announcedLimit, announcedLimit, info.at.Truncate(announcedWindow).Add(announcedWindow).Sub(info.at))
			next.ServeHTTP(w, r)
			return
		}
		caller, refusal := a.authenticate(info, r)
		if refusal != nil {
			next.ServeHTTP(w, r)
			return
		}
		remaining, reset, allowed := l.take(caller.Scope, info.at)
		announce(w.Header(), l.Limit, remaining, reset)
		if !allowed {
			writeProblem(w, newProblem(http.StatusTooManyRequests, scribe.CodeRateLimited,
				fmt.Sprintf("the credential has made its %d requests of this window; retry after %s seconds", l.Limit, seconds(reset))).
				with("Retry-After", seconds(reset)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate authenticates r once; the verdict is kept with the request.
func (a *API) authenticate(info *reqInfo, r *http.Request) (*principal, *problem) {
	if !info.authed {
		info.caller, info.refusal = a.auth.authenticate(r.Header["Authorization"])
		info.authed = true
	}
	return info.caller, info.refusal
}
