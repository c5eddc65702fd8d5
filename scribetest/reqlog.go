package scribetest

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
)

// Request is one request the server answered, as its request log keeps it.
// It holds no credential. Every field is bounded, so that the log stays
// small whatever clients send: Method is cut to 32 bytes, Path and Query to
// 512 bytes each, IdempotencyKey to its limit of 255; a cut value ends with
// TruncatedMarker.
type Request struct {
	// Time is when the request arrived, by the server's clock.
	Time time.Time
	// Method is the request's HTTP method.
	Method string
	// Path is the request's URL path, base path included, such as
	// "/v1/transcripts/42".
	Path string
	// Query is the raw query string, without the "?"; "" when the request
	// had none.
	Query string
	// IdempotencyKey is the request's Idempotency-Key header, if any.
	IdempotencyKey string
	// RequestID is the Request-Id the server answered with.
	RequestID string
	// Status is the HTTP status answered.
	Status int
	// Code is the problem code of an error answer (such as "not_found");
	// "" for a success.
	Code string
}

// requestLog keeps the last maxRecords requests and counts them all.
type requestLog struct {
	mu    sync.Mutex
	reqs  ring[Request]
	count int
}

func newRequestLog() *requestLog { return &requestLog{} }

// Bounds of the fields the request log and the fault record keep per
// request: their worst case, times maxRecords, is a few megabytes.
const (
	maxLoggedMethod  = 32
	maxLoggedURLPart = 512
)

// TruncatedMarker ends a value the server kept cut short (see Request).
const TruncatedMarker = "…[truncated]"

// truncate returns a copy of s if it has at most n bytes, else of its
// longest prefix of at most n bytes that ends on a UTF-8 boundary, followed
// by TruncatedMarker. It always copies: the request's method, path and query
// are substrings of its request line, and keeping even "GET" as such would
// pin the whole line, however long, for as long as the record lives.
func truncate(s string, n int) string {
	if s, cut := redact.Cut(s, n); cut {
		return strings.Clone(s) + TruncatedMarker
	}
	return strings.Clone(s)
}

// loggedMethod is truncate(m, maxLoggedMethod) without the copy for the
// methods the API uses: their constants pin nothing, and the request log is
// written on every request (an allocation less each).
func loggedMethod(m string) string {
	switch m {
	case http.MethodGet:
		return http.MethodGet
	case http.MethodPost:
		return http.MethodPost
	case http.MethodPatch:
		return http.MethodPatch
	case http.MethodPut:
		return http.MethodPut
	case http.MethodDelete:
		return http.MethodDelete
	case http.MethodHead:
		return http.MethodHead
	case http.MethodOptions:
		return http.MethodOptions
	}
	return truncate(m, maxLoggedMethod)
}

// loggedHeader is a header value bounded to n bytes as truncate bounds it,
// without the copy when it fits: unlike the request line's parts, a value
// net/http parsed is a string of its own (textproto copies each value out
// of the read buffer), so keeping it pins at most its n bytes.
func loggedHeader(v string, n int) string {
	if len(v) <= n {
		return v
	}
	return truncate(v, n)
}

// loggedPath is truncate(r.URL.Path, maxLoggedURLPart), without the copy
// when the router matched the path to an operation's path without an id
// (reqInfo.path): the server's own string then pins nothing of the
// request.
func loggedPath(r *http.Request, info *reqInfo) string {
	if info.path != "" && info.path == r.URL.Path {
		return info.path
	}
	return truncate(r.URL.Path, maxLoggedURLPart)
}

func (l *requestLog) add(r *http.Request, info *reqInfo, at time.Time) {
	rec := Request{
		Time:           at,
		Method:         loggedMethod(r.Method),
		Path:           loggedPath(r, info),
		Query:          truncate(r.URL.RawQuery, maxLoggedURLPart),
		IdempotencyKey: loggedHeader(headerValue(r.Header, "Idempotency-Key"), maxIdempotencyKey),
		RequestID:      info.id,
		Status:         info.status,
		Code:           info.code,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.reqs.push(rec)
}

// Requests returns the requests the server has answered, oldest first (the
// last 10,000 of them).
func (s *Server) Requests() []Request {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.reqs.all()
}

// RequestCount returns how many requests the server has answered.
func (s *Server) RequestCount() int {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.count
}
