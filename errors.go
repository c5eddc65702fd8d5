package scribe

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinel errors for the conditions callers branch on. An [*Error] matches
// them with [errors.Is] by its status code.
var (
	// ErrUnauthorized matches a 401: the credential is missing, invalid or expired.
	ErrUnauthorized = errors.New("scribe: unauthorized")
	// ErrForbidden matches a 403: the credential is valid but may not do this.
	ErrForbidden = errors.New("scribe: forbidden")
	// ErrNotFound matches a 404: no such resource in the caller's scope.
	ErrNotFound = errors.New("scribe: not found")
	// ErrRateLimited matches a 429 that retries did not overcome.
	ErrRateLimited = errors.New("scribe: rate limited")
	// ErrRedirect matches a 3xx answer. The service never redirects, so the
	// client follows no redirect (and sends no credential to its target);
	// Error.RedirectHost names where it pointed.
	ErrRedirect = errors.New("scribe: redirect not followed")
	// ErrResponseTooLarge matches a *ResponseTooLargeError.
	ErrResponseTooLarge = errors.New("scribe: response too large")
	// ErrResponseInterrupted matches a *ResponseInterruptedError: a 2xx
	// answer whose body could not be read to its end, after every retry.
	ErrResponseInterrupted = errors.New("scribe: response interrupted")
)

// maxErrorExcerpt bounds Error.Body and maxDecodeExcerpt DecodeError.Body;
// maxErrorBody bounds how much of any error response is read at all.
const (
	maxErrorExcerpt  = 512
	maxDecodeExcerpt = 64
	maxErrorBody     = 64 << 10
)

// Bounds, in bytes, of each field of an *Error taken from the answer; longer
// values are cut at a character boundary and end in "…".
const (
	maxCodeLen         = 64
	maxTypeLen         = 512
	maxTitleLen        = 256
	maxDetailLen       = 1024
	maxRequestIDLen    = 128
	maxRedirectHostLen = 256
	maxFieldLen        = 300
)

// Error is a non-2xx answer of the service. The problem fields (RFC 9457)
// are filled from an application/problem+json body; any other body leaves
// them empty and keeps a short excerpt in Body. Every field taken from the
// answer is scrubbed before it is stored: the request's own credential and
// anything shaped like a credential are redacted, control characters (ANSI
// escapes, CR, LF, bidirectional overrides) are escaped as \x1b, \r, \n,
// \u202e, and each field is bounded in length. Its message never carries a
// credential.
type Error struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Type is the problem document's type, a URI reference naming the kind
	// of problem ("about:blank" when only the status says it, as from the
	// reference server); empty when the body was not a problem document.
	Type string
	// Title is the problem document's title, a short summary of the kind
	// of problem that is the same on every occurrence (such as "Not
	// Found"); empty when the body was not a problem document.
	Title string
	// Detail is the problem document's detail, what went wrong with this
	// request (such as which parameter was refused and why); empty when
	// the service gave none.
	Detail string
	// Code is the stable machine-readable reason, one of the Code constants
	// (new codes may appear).
	Code string
	// RequestID identifies the request in the service's logs; quote it when
	// reporting a problem. It comes from the Request-Id header, or from the
	// problem document when the header is missing.
	RequestID string
	// RetryAfter is the wait the service asked for in Retry-After, capped at
	// one day; zero if none.
	RetryAfter time.Duration
	// Method is the request's HTTP method, such as "GET".
	Method string
	// Path is the operation's path relative to the base URL (such as
	// "/transcripts/42"), with its segments escaped and without the query
	// string.
	Path string
	// Body is an excerpt, at most 512 bytes, of a body that was not a
	// problem document (a proxy's error page, say); empty otherwise.
	Body string
	// IdempotencyKey is the Idempotency-Key the request carried (a POST;
	// empty otherwise). To retry the same operation later, after a restart
	// say, pass it to WithIdempotencyKey: the service then does the work at
	// most once.
	IdempotencyKey string
	// RedirectHost is set for a 3xx answer, which the client does not follow:
	// the host its Location header pointed to, or "(none)".
	RedirectHost string
}

// Error returns a one-line description: operation, status, code, detail,
// request id and, where one is obvious, what to do.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scribe: %s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.RedirectHost != "" {
		fmt.Fprintf(&b, ": redirect to %s not followed", e.RedirectHost)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	switch {
	case e.Detail != "":
		b.WriteString(": " + e.Detail)
	case e.Title != "":
		b.WriteString(": " + e.Title)
	case e.Body != "":
		fmt.Fprintf(&b, ": body %q", e.Body)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request id %s]", e.RequestID)
	}
	if h := e.hint(); h != "" {
		b.WriteString("; " + h)
	}
	return b.String()
}

// Is reports whether e matches one of the sentinel errors by its status.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrRedirect:
		return e.StatusCode >= 300 && e.StatusCode <= 399
	}
	return false
}

// hint says what to do, where that is obvious from the code or status, and
// where the service's detail does not say it already.
func (e *Error) hint() string {
	h, said := e.advice()
	if h == "" || (said != "" && strings.Contains(strings.ToLower(e.Detail), strings.ToLower(said))) {
		return ""
	}
	return h
}

// advice returns the hint for e, and a phrase whose presence in the detail
// means the service has given the same advice.
func (e *Error) advice() (hint, said string) {
	switch e.Code {
	case CodeMissingToken:
		return "pass WithDeveloperKey or WithTokenSource", ""
	case CodeTokenExpired:
		return "mint a new installation token (package auth's token sources refresh ahead of expiry)", "mint"
	case CodeInvalidToken:
		return "check the credential: " + e.credentialKind() + " is needed here", ""
	case CodeInstallationDeleted:
		return "the user uninstalled the plugin; stop calling for this installation", "stop calling"
	case CodePluginDisabled:
		return "the plugin is disabled; only the platform can enable it again", ""
	case CodeWrongTokenKind:
		return "this operation takes " + e.credentialKind(), "takes " + e.credentialKind()
	case CodePermissionDenied:
		return "the plugin's permissions do not allow this operation", ""
	case CodeIdempotencyKeyReused:
		return "an Idempotency-Key was reused with a different body; use a new key", "new key"
	case CodeIdempotencyKeyInUse:
		return "the first request with this Idempotency-Key is still running; retry later with the same key (Error.IdempotencyKey)", ""
	}
	switch {
	case e.StatusCode >= 300 && e.StatusCode <= 399:
		return "the service never redirects and no credential was sent there; check the base URL (a proxy or load balancer in between?)", ""
	case e.StatusCode == http.StatusTooManyRequests && e.RetryAfter > 0:
		return fmt.Sprintf("retry after %s", e.RetryAfter), ""
	case e.StatusCode == http.StatusTooManyRequests:
		return "slow down and retry later", ""
	case e.StatusCode == http.StatusUnauthorized:
		return "check the credential: " + e.credentialKind() + " is needed here", ""
	case e.StatusCode >= 500:
		return "the service failed; retry later and quote the request id if it persists", ""
	}
	return "", ""
}

// credentialKind names the credential an operation takes (docs/contract.md, "Operations").
func (e *Error) credentialKind() string {
	if strings.HasPrefix(e.Path, "/plugins") {
		return "a developer key"
	}
	return "an installation JWT"
}

// ArgumentError reports input the client refused before sending anything: a
// bad base URL or option, or parameters the service would reject.
type ArgumentError struct {
	// Func is the function or option that refused the input, such as
	// "NewClient", "CreatePlugin" or "WithMaxRetries".
	Func string
	// Arg names the argument, such as "baseURL" or "params.Name".
	Arg string
	// Reason says what was wrong and what to do.
	Reason string
	// Err is the error of package auth that refused the argument, such as
	// one matching auth.ErrInvalidKey or auth.ErrInvalidInstallationUUID;
	// nil when the client refused it itself. Reason repeats its message.
	Err error
}

// Unwrap returns Err, so that errors.Is(err, auth.ErrInvalidInstallationUUID)
// and the like match.
func (e *ArgumentError) Unwrap() error { return e.Err }

// Error returns "scribe: <Func>: <Arg>: <Reason>".
func (e *ArgumentError) Error() string {
	if e.Arg == "" {
		return "scribe: " + e.Func + ": " + e.Reason
	}
	return "scribe: " + e.Func + ": " + e.Arg + ": " + e.Reason
}

// DecodeError reports a 2xx answer whose body is not the operation's
// result: malformed JSON, a member of the wrong type, a body that is not
// an object, a resource without its identity or a page without data or
// has_more (null, {} and a gateway's {"error": ...} among them), no JSON
// at all (a captive portal's HTML page, a bare "OK", an empty body), or,
// with WithStrictDecoding, any member api/openapi.yaml requires absent or
// null where it is not nullable. Its message names the
// member, what was expected there and the byte offset, but never a value
// of a JSON body, which may hold secrets; for a body that is not JSON it
// says what the body looks like (HTML, XML, text) and quotes its first
// bytes from the offset, scrubbed as Body says. It is bounded in length.
type DecodeError struct {
	// Method is the request's HTTP method, such as "GET".
	Method string
	// Path is the operation's path relative to the base URL (such as
	// "/plugins/100"), without the query string.
	Path string
	// StatusCode is the 2xx status the service answered with.
	StatusCode int
	// RequestID is the answer's Request-Id header, empty if it carried
	// none; quote it when reporting the problem.
	RequestID string
	// Field is the JSON pointer (RFC 6901) of the member at fault, such as
	// "/data/3/created_on"; "" for the body as a whole.
	Field string
	// Offset is the byte offset in the body at or after which the fault lies.
	Offset int64
	// Err is the decoder's error; its message quotes no value either.
	Err error
	// Body is set when the answer is not JSON where JSON belongs: its
	// first bytes from Offset, at most 64, with credentials redacted and
	// control characters escaped as in Error.Body; empty otherwise.
	Body string
}

// Error names the operation, the request id and what was wrong where, and
// for a body that is not JSON, what it looks like and how it begins.
func (e *DecodeError) Error() string {
	s := fmt.Sprintf("scribe: %s %s: cannot decode the %d response", e.Method, e.Path, e.StatusCode)
	if e.RequestID != "" {
		s += " [request id " + e.RequestID + "]"
	}
	s += ": " + e.Err.Error()
	if e.Body != "" {
		s += fmt.Sprintf("; it looks like %s: %q", looksLike(e.Body), e.Body)
	}
	return s
}

// looksLike names what a body that is not JSON looks like, by its first
// bytes (net/http's content sniffing): "HTML", "XML", "text", or the media
// type it was taken for.
func looksLike(body string) string {
	switch t, _, _ := strings.Cut(http.DetectContentType([]byte(body)), ";"); t {
	case "text/html":
		return "HTML"
	case "text/xml":
		return "XML"
	case "text/plain":
		return "text"
	default:
		return t
	}
}

// Unwrap returns Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// ResponseInterruptedError reports a 2xx answer whose body could not be
// read to its end (the connection dropped, or the attempt timed out,
// mid-body), on the last attempt the call was allowed. It matches
// ErrResponseInterrupted with errors.Is, and the underlying error (such as
// io.ErrUnexpectedEOF or context.Canceled) too.
//
// For a POST the service did the work: its answer, a new secret key's value
// say, is stored under the request's Idempotency-Key for 24 hours. Repeat
// the call with WithIdempotencyKey(e.IdempotencyKey) to get it, instead of
// doing the work a second time.
type ResponseInterruptedError struct {
	// Method is the request's HTTP method, such as "POST".
	Method string
	// Path is the operation's path relative to the base URL.
	Path string
	// StatusCode is the 2xx status of the interrupted answer.
	StatusCode int
	// RequestID is the answer's Request-Id, if any.
	RequestID string
	// IdempotencyKey is the Idempotency-Key of a POST ("" for a GET): pass
	// it to WithIdempotencyKey to fetch the stored answer.
	IdempotencyKey string
	// Attempts is how many requests the call sent.
	Attempts int
	// Err is why the body ended early.
	Err error
}

// Error names the operation and, for a POST, how to fetch its answer again.
func (e *ResponseInterruptedError) Error() string {
	s := fmt.Sprintf("scribe: %s %s (%s): the %d response was cut off before its end", e.Method, e.Path, plural(e.Attempts, "attempt"), e.StatusCode)
	if e.RequestID != "" {
		s += " [request id " + e.RequestID + "]"
	}
	s += ": " + e.Err.Error()
	if e.IdempotencyKey != "" {
		s += fmt.Sprintf("; the service may have done the work: repeat the call with WithIdempotencyKey(%q) within 24 hours to get its answer", e.IdempotencyKey)
	}
	return s
}

// Is reports whether target is ErrResponseInterrupted.
func (e *ResponseInterruptedError) Is(target error) bool { return target == ErrResponseInterrupted }

// Unwrap returns Err.
func (e *ResponseInterruptedError) Unwrap() error { return e.Err }

// ResponseTooLargeError reports a 2xx answer whose body exceeds the limit
// of WithMaxResponseBytes (DefaultMaxResponseBytes unless set). The body was
// not read past the limit and its connection was closed. It matches
// ErrResponseTooLarge with errors.Is.
type ResponseTooLargeError struct {
	// Method and Path name the operation, the path relative to the base URL.
	Method string
	// Path is the operation's path relative to the base URL, such as "/transcripts".
	Path string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// RequestID is the answer's Request-Id, if any.
	RequestID string
	// Limit is the bound, in bytes, that the body exceeded.
	Limit int64
}

// Error names the operation, the limit and what to do.
func (e *ResponseTooLargeError) Error() string {
	s := fmt.Sprintf("scribe: %s %s: the %d response is longer than %d bytes", e.Method, e.Path, e.StatusCode, e.Limit)
	if e.RequestID != "" {
		s += " [request id " + e.RequestID + "]"
	}
	return s + "; ask for smaller pages (ListParams.Limit) or raise the bound with WithMaxResponseBytes"
}

// Is reports whether target is ErrResponseTooLarge.
func (e *ResponseTooLargeError) Is(target error) bool { return target == ErrResponseTooLarge }
