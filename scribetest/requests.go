package scribetest

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Request is one request the server answered, as its request log keeps it. It
// holds no credential: text shaped like one in the path or query (a token a
// client put in the URL) is redacted, as the SDK prints it. Every field is
// bounded, so that the log stays small whatever clients send: Method is cut to 32 bytes, Path and Query to 512
// bytes each, IdempotencyKey to its limit of 255; a cut value ends with
// TruncatedMarker.
type Request struct {
	// Time is when the request arrived, by the server's clock.
	Time time.Time
	// Method is the request's HTTP method.
	Method string
	// Path is the request's URL path, base path included, such as
	// "/v1/transcripts/42".
	Path string
	// Query is the raw query string, without the "?"; "" when the request had
	// none.
	Query string
	// IdempotencyKey is the request's Idempotency-Key header, if any.
	IdempotencyKey string
	// RequestID is the Request-Id the server answered with.
	RequestID string
	// Status is the HTTP status answered.
	Status int
	// Code is the problem code of an error answer (such as "not_found"); ""
	// for a success.
	Code string
	// Installation is the uuid of the installation whose JWT the request
	// carried, once the JWT's signature verified (so also for a 401
	// installation_deleted); "" for a developer key or a token refused
	// before that.
	Installation string
	// Credential is the kind of credential the request presented, accepted
	// or not, as the server reads the shape of its bearer token.
	Credential CredentialKind
	// Duration is how long the server took to answer, by the wall clock.
	Duration time.Duration
}

// CredentialKind is the kind of credential a request presented: the server
// verifies a bearer token shaped like a JWT as an installation JWT and looks
// any other up as a developer key. The request log keeps only the kind.
type CredentialKind string

// The kinds of credential of Request.Credential.
const (
	// CredentialNone: no Authorization header, or one without a bearer token.
	CredentialNone CredentialKind = "none"
	// CredentialDeveloperKey: a bearer token not shaped like a JWT.
	CredentialDeveloperKey CredentialKind = "developer_key"
	// CredentialInstallationJWT: a bearer token shaped like a JWT.
	CredentialInstallationJWT CredentialKind = "installation_jwt"
)

// credentialKind says which kind of credential the Authorization header
// values present, by their shape, as the server's authentication reads
// them, whether or not the credential is accepted: none without a bearer
// token, an installation JWT when the token looks like one, else a
// developer key.
func credentialKind(values []string) CredentialKind {
	if len(values) == 0 {
		return CredentialNone
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	switch token = strings.TrimLeft(token, " "); {
	case !strings.EqualFold(scheme, "Bearer") || token == "":
		return CredentialNone
	case state.LooksLikeJWT(token):
		return CredentialInstallationJWT
	}
	return CredentialDeveloperKey
}

// Requests returns the requests the server has answered, oldest first (the
// last 10,000 of them).
func (s *Server) Requests() []Request { return s.requests.All() }

// RequestCount returns how many requests the server has answered.
func (s *Server) RequestCount() int { return s.requests.Total() }

// logRequest records r, answered with status (and problem code, if any) in
// took, of installation (if any).
func (s *Server) logRequest(r *http.Request, at time.Time, requestID string, status int, code, installation string, took time.Duration) {
	s.requests.Push(Request{
		Time: at, Method: truncate(r.Method, maxMethod),
		Path: truncate(r.URL.Path, maxURLPart), Query: truncate(r.URL.RawQuery, maxURLPart),
		IdempotencyKey: truncate(r.Header.Get("Idempotency-Key"), state.MaxIdempotencyKey), RequestID: requestID, Status: status, Code: code, Installation: installation,
		Credential: credentialKind(r.Header["Authorization"]), Duration: took,
	})
}

// maxRecords bounds each record: requests, fired faults, delivery attempts.
const maxRecords = 10000

// ring keeps the last maxRecords values pushed and counts them all. It is
// safe for concurrent use; the zero value is empty and ready.
type ring[T any] struct {
	mu    sync.Mutex
	buf   []T
	next  int // where the next push goes once buf is full
	total int // how many values were pushed in all
}

// Push adds v, dropping the oldest value when the ring is full, which it
// returns (the zero value while the ring is not full).
func (r *ring[T]) Push(v T) (dropped T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if len(r.buf) < maxRecords {
		r.buf = append(r.buf, v)
		return dropped
	}
	dropped, r.buf[r.next] = r.buf[r.next], v
	r.next = (r.next + 1) % maxRecords
	return dropped
}

// reset empties the ring, its count too.
func (r *ring[T]) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf, r.next, r.total = nil, 0, 0
}

// All returns a copy of the values, oldest first.
func (r *ring[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append(make([]T, 0, len(r.buf)), r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}

// Total returns how many values were pushed in all.
func (r *ring[T]) Total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Backward yields the values newest first, holding the ring's lock: the
// loop's body must not push.
func (r *ring[T]) Backward(yield func(T) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range len(r.buf) {
		if !yield(r.buf[(r.next+len(r.buf)-1-i)%len(r.buf)]) {
			return
		}
	}
}

// Bounds of what the records keep of a request: a few megabytes in all.
const (
	maxMethod  = 32
	maxURLPart = 512
)

// TruncatedMarker ends a value the server kept cut short (see Request).
const TruncatedMarker = "…[truncated]"

// redactWindow is how much of a value truncate reads for credentials: the
// longest request target the server serves (8 KiB), so that a value the
// server refused as too long costs no more to record than one it served.
const redactWindow = 8 << 10

// truncate returns a copy (not pinning the request) of s, a value a client
// sent, as valid UTF-8 with credentials redacted and control characters
// escaped (redact.Field), cut to n bytes and marked if cut.
func truncate(s string, n int) string {
	s = redact.Field(s[:min(len(s), redactWindow)], redactWindow)
	cut, more := redact.Cut(s, n)
	if !more {
		return strings.Clone(s)
	}
	return cut + TruncatedMarker
}
