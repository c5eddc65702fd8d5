package scribe

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/transport"
)

// Defaults of the options.
const (
	// DefaultMaxRetries is how many times a failed request is retried unless
	// WithMaxRetries says otherwise.
	DefaultMaxRetries = 2
	// DefaultRetryWaitMin and DefaultRetryWaitMax bound the backoff between
	// retries unless WithRetryWait says otherwise.
	DefaultRetryWaitMin = 500 * time.Millisecond
	DefaultRetryWaitMax = 8 * time.Second
	// DefaultRequestTimeout bounds each attempt unless WithRequestTimeout
	// says otherwise.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultMaxResponseBytes bounds the body of a successful answer unless
	// WithMaxResponseBytes says otherwise: 32 MiB, room for a 100-item page
	// of transcripts averaging over 300 KiB of text each (docs/client.md,
	// "Against a hostile network").
	DefaultMaxResponseBytes int64 = 32 << 20
	// DefaultMaxIdleConnsPerHost is how many idle connections to the service
	// the client's own transport keeps for reuse: enough for 100 concurrent
	// calls to find a warm connection, instead of net/http's default of 2.
	// A transport given with WithHTTPClient keeps its own setting.
	DefaultMaxIdleConnsPerHost = 100
)

// An Option configures a Client (given to NewClient or Client.WithOptions)
// or a single call (given as the last arguments of a method, where it
// overrides the client's setting for that call only). Each option's doc says
// where it applies: most apply to both; those that configure a client
// (WithHTTPClient, WithDeveloperKey, WithTokenSource, WithLogger,
// WithInsecureHTTP) are refused by a call, and those that apply to one call
// (WithIdempotencyKey, WithResponseInto) by NewClient and WithOptions, with
// an *ArgumentError naming the option. The zero Option does nothing.
type Option struct {
	apply func(*settings) error
}

// settings is what the options configure; a Client holds one, and a call
// given options of its own works on a copy.
type settings struct {
	perCall      bool         // applying per-call options
	hc           *http.Client // WithHTTPClient's (or the SDK's own), following no redirect (transport.NoRedirects)
	credential   credential
	timeout      time.Duration
	maxRetries   int
	waitMin      time.Duration
	waitMax      time.Duration
	uaSuffix     string
	logger       *slog.Logger
	idemKey      *string // nil: generate one for each POST
	header       http.Header
	insecureHTTP bool
	// maxResponseBytes bounds a 2xx body.
	maxResponseBytes int64
	// responseInto, if set, receives the final response's metadata (per call).
	responseInto *Response
	middleware   []Middleware    // WithMiddleware's, client-level first
	hooks        []OperationHook // WithOperationHook's, client-level first
	// strictDecoding refuses an answer with a member absent or null
	// (WithStrictDecoding).
	strictDecoding bool
	// gapsLogged holds the "operation member" pairs an answer lacked that
	// have been logged (warnGap); shared by the clients WithOptions derives.
	gapsLogged *sync.Map
}

func defaultSettings() settings {
	return settings{
		hc:               transport.NoRedirects(&http.Client{Transport: defaultTransport()}),
		timeout:          DefaultRequestTimeout,
		maxRetries:       DefaultMaxRetries,
		waitMin:          DefaultRetryWaitMin,
		waitMax:          DefaultRetryWaitMax,
		maxResponseBytes: DefaultMaxResponseBytes,
		gapsLogged:       new(sync.Map),
	}
}

// defaultTransport is the transport of a client without WithHTTPClient:
// net/http's defaults (proxy from the environment, dial and TLS timeouts,
// HTTP/2), with enough idle connections per host for concurrent calls to
// reuse them rather than open and close one per call.
func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(t.MaxIdleConns, DefaultMaxIdleConnsPerHost)
	t.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	return t
}

// clone returns a copy that shares nothing mutable with s.
func (s settings) clone() settings {
	s.header = s.header.Clone()
	return s
}

// clientOnly refuses, in a call, an option that configures a client.
func (s *settings) clientOnly(option string) error {
	if s.perCall {
		return &ArgumentError{Func: option, Reason: "configures a client; pass it to NewClient or WithOptions, not to a method"}
	}
	return nil
}

// callOnly refuses, in a client, an option that applies to one call.
func (s *settings) callOnly(option string) error {
	if !s.perCall {
		return &ArgumentError{Func: option, Reason: "applies to one call; pass it to the method, not to NewClient or WithOptions"}
	}
	return nil
}

func (s *settings) applyAll(opts []Option) error {
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(s); err != nil {
			return err
		}
	}
	return nil
}

// credential is how a request is authorized: by a developer key or by a
// token source. A nil credential sends no Authorization header.
type credential interface {
	token(ctx context.Context) (string, error)
}

// developerKey authorizes with a developer key, which prints redacted.
type developerKey struct{ key auth.DeveloperKey }

func (k *developerKey) token(context.Context) (string, error) { return k.key.Reveal(), nil }

// tokenSource authorizes with an installation token source (stored as a
// pointer, for the same reason).
type tokenSource struct{ ts TokenSource }

func (t *tokenSource) token(ctx context.Context) (string, error) { return t.ts.Token(ctx) }

// WithTokenSource authorizes requests with the tokens of ts, typically an
// installation token source of package auth (the operations on /transcripts
// and /users/me). It replaces any credential given before it. If ts also
// implements TokenInvalidator, a 401 invalidates the refused token and the
// request is retried once with a fresh one. It configures a client: a call
// refuses it.
func WithTokenSource(ts TokenSource) Option {
	return Option{func(s *settings) error {
		if err := s.clientOnly("WithTokenSource"); err != nil {
			return err
		}
		if ts == nil {
			return &ArgumentError{Func: "WithTokenSource", Arg: "ts", Reason: "is nil"}
		}
		s.credential = &tokenSource{ts}
		return nil
	}}
}

// WithHTTPClient sends requests through hc (its Transport, Jar and Timeout)
// instead of a client of the SDK's own. Its Timeout, if any, applies to each
// attempt on top of WithRequestTimeout. Its CheckRedirect is not used: the
// client follows no redirect, whatever hc says (a 3xx is an *Error), so that
// no credential reaches another origin. Its transport's connection pool is
// the one the calls use; see DefaultMaxIdleConnsPerHost for the SDK's own.
// It configures a client: a call refuses it.
func WithHTTPClient(hc *http.Client) Option {
	return Option{func(s *settings) error {
		if err := s.clientOnly("WithHTTPClient"); err != nil {
			return err
		}
		if hc == nil {
			return &ArgumentError{Func: "WithHTTPClient", Arg: "hc", Reason: "is nil"}
		}
		s.hc = transport.NoRedirects(hc)
		return nil
	}}
}

// WithRequestTimeout bounds each attempt of a request, from sending it to
// reading the whole answer (default 60 s); 0 removes the bound. The whole
// call, retries and backoff included, is bounded by its context. An attempt
// that runs out of time is retried like a dropped connection; the error it
// leaves is a net.Error whose Timeout reports true, and matches
// context.DeadlineExceeded with errors.Is. It applies to a client and to a
// call.
func WithRequestTimeout(d time.Duration) Option {
	return Option{func(s *settings) error {
		if d < 0 {
			return &ArgumentError{Func: "WithRequestTimeout", Arg: "d", Reason: fmt.Sprintf("is negative (%s); pass 0 for no per-attempt timeout", d)}
		}
		s.timeout = d
		return nil
	}}
}

// WithMaxRetries sets how many times a failed request is retried (default 2);
// 0 disables retries. It applies to a client and to a call.
func WithMaxRetries(n int) Option {
	return Option{func(s *settings) error {
		if n < 0 {
			return &ArgumentError{Func: "WithMaxRetries", Arg: "n", Reason: fmt.Sprintf("is negative (%d); pass 0 to disable retries", n)}
		}
		s.maxRetries = n
		return nil
	}}
}

// WithRetryWait bounds the backoff between retries (default 500 ms and 8 s):
// the wait before retry n is drawn uniformly between minWait and
// min(maxWait, minWait·2^n). A Retry-After from the service overrides it.
// WithRetryWait(0, 0) retries at once, which is what tests want. It applies
// to a client and to a call.
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return Option{func(s *settings) error {
		if minWait < 0 || maxWait < minWait {
			return &ArgumentError{Func: "WithRetryWait", Reason: fmt.Sprintf("want 0 <= min <= max, got min %s, max %s", minWait, maxWait)}
		}
		s.waitMin, s.waitMax = minWait, maxWait
		return nil
	}}
}

// WithUserAgentSuffix appends s, such as "my-crm-sync/1.4", to the
// User-Agent the SDK sends. It applies to a client and to a call.
func WithUserAgentSuffix(suffix string) Option {
	return Option{func(s *settings) error {
		if strings.ContainsFunc(suffix, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return &ArgumentError{Func: "WithUserAgentSuffix", Arg: "suffix", Reason: "contains control characters"}
		}
		s.uaSuffix = strings.TrimSpace(suffix)
		return nil
	}}
}

// WithLogger writes the client's log lines to l: each attempt at Debug
// (method, path, status, attempt, request id, duration), each retry and the
// one retry after a refused token at Info (with the wait and the failure),
// a call that gives up after retryable failures at Warn, and, at Warn once
// per client, operation and member, an answer that lacked a member or had
// it null (read as its zero value; docs/client.md, "Decoding answers"). It
// never logs a header value, a token, a key or a value of an answer. The
// default is no logging; nil turns it off. It configures a client: a call
// refuses it.
func WithLogger(l *slog.Logger) Option {
	return Option{func(s *settings) error {
		if err := s.clientOnly("WithLogger"); err != nil {
			return err
		}
		s.logger = l
		return nil
	}}
}

// WithIdempotencyKey sends key as the Idempotency-Key of a POST, instead of
// the random key the client generates for each POST; the service then
// answers a repeat of the same request with the first answer. It applies to
// one call only: given to NewClient or WithOptions it is refused, since every
// POST needs its own key. An empty key sends no Idempotency-Key at all, and
// then the POST is never retried, since a replay could do the work twice.
// Keys are at most 255 printable ASCII characters.
func WithIdempotencyKey(key string) Option {
	return Option{func(s *settings) error {
		if err := s.callOnly("WithIdempotencyKey"); err != nil {
			return err
		}
		if len(key) > 255 {
			return &ArgumentError{Func: "WithIdempotencyKey", Arg: "key", Reason: fmt.Sprintf("is %d characters long; the service accepts at most 255", len(key))}
		}
		if key != "" && !validToken(key) {
			return &ArgumentError{Func: "WithIdempotencyKey", Arg: "key", Reason: "must be printable ASCII without spaces"}
		}
		s.idemKey = &key
		return nil
	}}
}

// reservedHeaders are set by the client itself; WithHeader refuses them and
// names the option to use instead.
var reservedHeaders = map[string]string{
	"Authorization":   "use WithDeveloperKey or WithTokenSource",
	"Idempotency-Key": "use WithIdempotencyKey",
	"User-Agent":      "use WithUserAgentSuffix",
	"Content-Type":    "the client sets it",
	"Content-Length":  "the client sets it",
	"Host":            "it comes from the base URL",
}

// WithHeader sets an extra request header, such as a tracing header. It
// refuses, with an *ArgumentError from the call, the headers the client sets
// itself: Authorization (so a credential is never replaced silently),
// Idempotency-Key, User-Agent, Content-Type, Content-Length and Host. It
// applies to a client and to a call.
func WithHeader(key, value string) Option {
	return Option{func(s *settings) error {
		canon := textproto.CanonicalMIMEHeaderKey(key)
		if hint, ok := reservedHeaders[canon]; ok {
			return &ArgumentError{Func: "WithHeader", Arg: canon, Reason: "is set by the client; " + hint}
		}
		if key == "" || strings.ContainsFunc(key, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) }) {
			return &ArgumentError{Func: "WithHeader", Arg: "key", Reason: fmt.Sprintf("%q is not a valid header name", key)}
		}
		if strings.ContainsFunc(value, func(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }) {
			return &ArgumentError{Func: "WithHeader", Arg: canon, Reason: "value contains control characters"}
		}
		if s.header == nil {
			s.header = http.Header{}
		}
		s.header.Set(canon, value)
		return nil
	}}
}

// WithMaxResponseBytes bounds the body of a successful answer (default
// DefaultMaxResponseBytes, 32 MiB). A longer body is not read: the call
// returns a *ResponseTooLargeError and the connection is closed rather than
// drained. Error answers are bounded separately (64 KiB are read). It
// applies to a client and to a call.
func WithMaxResponseBytes(n int64) Option {
	return Option{func(s *settings) error {
		if n <= 0 {
			return &ArgumentError{Func: "WithMaxResponseBytes", Arg: "n", Reason: fmt.Sprintf("is %d; pass a positive number of bytes", n)}
		}
		s.maxResponseBytes = n
		return nil
	}}
}

// WithResponseInto stores what the final answer of one call said besides its
// body (status, headers, request id, rate-limit figures, attempts) into
// *dst, on success and on an error answer alike; a call that got no answer
// at all leaves *dst unchanged. It applies to one call only: given to
// NewClient or WithOptions it is refused. Given to a List method, *dst holds
// the latest page's answer; each Page also carries its own in Page.Response.
func WithResponseInto(dst *Response) Option {
	return Option{func(s *settings) error {
		if err := s.callOnly("WithResponseInto"); err != nil {
			return err
		}
		if dst == nil {
			return &ArgumentError{Func: "WithResponseInto", Arg: "dst", Reason: "is nil; pass a pointer to a Response"}
		}
		s.responseInto = dst
		return nil
	}}
}

// WithStrictDecoding refuses, as a *DecodeError naming the member, an
// answer that lacks a member of the contract or has one null where the
// contract does not allow null, where the default reads it as the zero
// value and logs it (docs/client.md, "Decoding answers"). For tests and
// conformance checks, where drift should fail loudly; the clients package
// scribetest hands out use it. It applies to a client or to one call.
func WithStrictDecoding() Option {
	return Option{func(s *settings) error {
		s.strictDecoding = true
		return nil
	}}
}

// WithInsecureHTTP lets NewClient accept a plain http base URL whose host is
// not loopback, for a trusted network only: credentials then travel in clear
// text. Loopback hosts (localhost, 127.0.0.0/8, ::1) never need it. It
// configures a client (WithOptions keeps the base URL NewClient accepted): a
// call refuses it.
func WithInsecureHTTP() Option {
	return Option{func(s *settings) error {
		if err := s.clientOnly("WithInsecureHTTP"); err != nil {
			return err
		}
		s.insecureHTTP = true
		return nil
	}}
}

// validToken reports whether s can stand in a header as a token: visible
// ASCII, no spaces.
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
