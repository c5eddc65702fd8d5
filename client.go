package scribe

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/scribehq/scribe-go/internal/transport"
	"github.com/scribehq/scribe-go/internal/wire"
)

// TokenSource supplies the bearer token the client sends. Package auth's
// installation token sources implement it; a fixed developer key is wrapped by
// the client itself.
type TokenSource interface {
	// Token returns a token valid for at least the next request.
	Token(ctx context.Context) (string, error)
}

// TokenInvalidator is implemented by token sources that can drop a token the
// service refused. After a 401 the client calls Invalidate with the refused
// token and retries the request once with a fresh one.
type TokenInvalidator interface {
	// Invalidate drops token if it is still the one the source hands out,
	// so that the next Token call returns a fresh one; a token already
	// replaced is ignored. The client calls it from any goroutine,
	// possibly from many at once.
	Invalidate(token string)
}

// Client calls the Plugin Integration Service. It is safe for concurrent use
// and cheap to copy with WithOptions; create one per base URL and credential
// and reuse it, so that connections are reused.
//
// A client without a credential sends no Authorization header (the service
// answers 401). That is allowed on purpose: such a client is a template from
// which WithOptions derives one scoped client per installation.
type Client struct {
	baseURL *url.URL  // never modified after NewClient
	s       *settings // never modified after construction; behind a pointer so fmt prints no credential
	err     error     // a bad option given to WithOptions; every call returns it
}

// NewClient returns a client for the service at baseURL, such as
// "https://api.example.com/v1"; the operation paths are joined to it.
// The base URL must be absolute, http or https, without credentials, query or
// fragment. Plain http is refused for any host but a loopback one
// (localhost, 127.0.0.0/8, ::1) unless WithInsecureHTTP is given. Errors
// are *ArgumentError values.
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	s := defaultSettings()
	if err := s.applyAll(opts); err != nil {
		return nil, err
	}
	u, err := parseBaseURL(baseURL, s.insecureHTTP)
	if err != nil {
		return nil, err
	}
	return &Client{baseURL: u, s: &s}, nil
}

// WithOptions returns a copy of c with opts applied on top of c's settings.
// The copy shares c's HTTP client, hence its transport and connection pool,
// unless opts include WithHTTPClient: this is how a backend derives one client
// per installation (WithTokenSource) from one configured client. A credential
// option replaces c's credential. Since WithOptions returns no error, an
// invalid option makes every call of the copy fail with its *ArgumentError.
func (c *Client) WithOptions(opts ...Option) *Client {
	s := c.s.clone()
	cp := &Client{baseURL: c.baseURL, s: &s, err: c.err}
	if cp.err == nil {
		cp.err = cp.s.applyAll(opts)
	}
	return cp
}

func parseBaseURL(raw string, insecure bool) (*url.URL, error) {
	bad := func(reason string) error {
		return &ArgumentError{Func: "NewClient", Arg: "baseURL", Reason: reason}
	}
	if strings.TrimSpace(raw) == "" {
		return nil, bad("is empty; pass the service's base URL, such as https://api.example.com/v1")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// The parser's message repeats the URL, which could hold a password.
		return nil, bad("is not a valid URL; pass one such as https://api.example.com/v1")
	}
	if u.User != nil {
		return nil, bad("must not carry credentials (user:password@); pass them with WithDeveloperKey or WithTokenSource")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, bad(fmt.Sprintf("must be an absolute https:// URL, got %q", u.Redacted()))
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, bad(fmt.Sprintf("has no host: %q", u.Redacted()))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, bad(fmt.Sprintf("must not carry a query or fragment: %q", u.Redacted()))
	}
	if u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()) {
		return nil, bad(fmt.Sprintf("plain http to %q would send credentials in clear text; use https, or pass WithInsecureHTTP() on a trusted network", u.Hostname()))
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// userAgent is the User-Agent of every request (CONTRACT §9).
func userAgent(suffix string) string {
	ua := "scribe-go/" + Version + " (interface " + InterfaceVersion + "; " + runtime.Version() + ")"
	if suffix != "" {
		ua += " " + suffix
	}
	return ua
}

// request describes one operation to send.
type request struct {
	method string
	// segments are the path elements below the base URL, unescaped:
	// {"plugins", "100", "secret_keys"}.
	segments []string
	query    url.Values
	body     any // marshalled to JSON when not nil
}

// path is the operation's path relative to the base URL, for errors and logs.
func (r *request) path() string {
	var b strings.Builder
	for _, s := range r.segments {
		b.WriteString("/" + url.PathEscape(s))
	}
	return b.String()
}

// meta is what a call learns from its final response besides the body.
type meta struct {
	statusCode int
	requestID  string
}

// do sends r with the client's settings and opts, retrying as the policy
// says, and decodes a 2xx body into out (unless out is nil). Any other answer
// is an *Error.
func (c *Client) do(ctx context.Context, r request, out any, opts []Option) (meta, error) {
	if c.err != nil {
		return meta{}, c.err
	}
	if ctx == nil {
		return meta{}, &ArgumentError{Func: r.method + " " + r.path(), Arg: "ctx", Reason: "is nil; pass context.Background() or a request's context"}
	}
	s := c.s.clone()
	s.perCall = true
	if err := s.applyAll(opts); err != nil {
		return meta{}, err
	}
	escaped := make([]string, len(r.segments))
	for i, seg := range r.segments {
		escaped[i] = url.PathEscape(seg)
	}
	u := c.baseURL.JoinPath(escaped...)
	u.RawQuery = r.query.Encode()

	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return meta{}, fmt.Errorf("scribe: %s %s: encoding the request body: %w", r.method, r.path(), err)
		}
	}
	idemKey := ""
	if r.method == http.MethodPost {
		if s.idemKey != nil {
			idemKey = *s.idemKey
		} else {
			idemKey = rand.Text() // 26 base32 characters, 130 random bits
		}
	}

	ex := &exchange{s: &s, r: &r, path: r.path(), url: u.String(), body: body, idemKey: idemKey}
	var invalidator TokenInvalidator
	if ts, ok := s.credential.(*tokenSource); ok {
		invalidator, _ = ts.ts.(TokenInvalidator)
	}
	for round := 0; ; round++ {
		resp, err := ex.send(ctx)
		if err != nil {
			return meta{}, err
		}
		if resp.StatusCode == http.StatusUnauthorized && round == 0 && invalidator != nil && ex.lastToken != "" {
			// The token was refused (revoked key, clock skew, ...): drop it
			// and try once more with a fresh one. Never twice.
			drain(resp)
			invalidator.Invalidate(ex.lastToken)
			ex.log(ctx, "scribe: token refused; retrying once with a fresh token")
			continue
		}
		return ex.finish(resp, out)
	}
}

// exchange is the state of one call across its attempts.
type exchange struct {
	s         *settings
	r         *request
	path      string
	url       string
	body      []byte
	idemKey   string
	attempts  int
	lastToken string // the token of the latest attempt
}

func (ex *exchange) send(ctx context.Context) (*http.Response, error) {
	s, r := ex.s, ex.r
	at := &transport.Attempt{
		Base:    s.httpClient.Transport,
		Timeout: s.timeout,
		Prepare: ex.authorize,
		Observe: func(_ int, req *http.Request, resp *http.Response, err error, took time.Duration) {
			ex.attempts++
			ex.logAttempt(req.Context(), resp, err, took)
		},
	}
	hc := *s.httpClient // shares Jar and CheckRedirect; the transport is wrapped
	hc.Transport = at
	rc := &retryablehttp.Client{
		HTTPClient:   &hc,
		Logger:       nil, // its messages are not ours to print; we log each attempt ourselves
		RetryWaitMin: s.waitMin,
		RetryWaitMax: s.waitMax,
		RetryMax:     s.maxRetries,
		CheckRetry:   transport.CheckRetry(r.method, r.method != http.MethodPost || ex.idemKey != ""),
		Backoff: func(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
			wait := transport.Backoff(minWait, maxWait, n, resp)
			ex.log(ctx, "scribe: retry wait", slog.Int("attempt", ex.attempts), slog.Duration("wait", wait))
			return wait
		},
		// Hand back the last answer when retries are exhausted, so that the
		// caller gets its *Error rather than a generic "giving up".
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			if err != nil {
				if resp != nil {
					drain(resp)
				}
				return nil, err
			}
			return resp, nil
		},
	}
	var raw any // a nil interface for no body, not a nil []byte
	if ex.body != nil {
		raw = ex.body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, r.method, ex.url, raw)
	if err != nil {
		return nil, fmt.Errorf("scribe: %s %s: building the request: %w", r.method, ex.path, err)
	}
	for k, v := range s.header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", userAgent(s.uaSuffix))
	req.Header.Set("Accept", "application/json")
	if ex.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if ex.idemKey != "" {
		req.Header.Set("Idempotency-Key", ex.idemKey)
	}
	resp, err := rc.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = ctxErr
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL; ours names the operation
		}
		return nil, fmt.Errorf("scribe: %s %s (%s): %w", r.method, ex.path, plural(ex.attempts, "attempt"), err)
	}
	return resp, nil
}

// authorize sets the Authorization header of one attempt.
func (ex *exchange) authorize(req *http.Request) error {
	ex.lastToken = ""
	if ex.s.credential == nil {
		return nil
	}
	tok, err := ex.s.credential.token(req.Context())
	if err != nil {
		return fmt.Errorf("token source: %w", err)
	}
	if tok == "" || !validToken(tok) {
		return errors.New("token source returned an empty token or one with spaces or control characters")
	}
	ex.lastToken = tok
	req.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

// finish turns the final response into the call's result.
func (ex *exchange) finish(resp *http.Response, out any) (meta, error) {
	defer resp.Body.Close()
	m := meta{statusCode: resp.StatusCode, requestID: resp.Header.Get("Request-Id")}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return m, ex.apiError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return m, nil
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return m, fmt.Errorf("scribe: %s %s: reading the %d response: %w", ex.r.method, ex.path, resp.StatusCode, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return m, &DecodeError{Method: ex.r.method, Path: ex.path, StatusCode: resp.StatusCode, RequestID: m.requestID, Err: err}
	}
	return m, nil
}

// apiError reads at most maxErrorBody bytes of a non-2xx answer into an *Error.
func (ex *exchange) apiError(resp *http.Response) *Error {
	e := &Error{
		StatusCode: resp.StatusCode,
		RequestID:  resp.Header.Get("Request-Id"),
		Method:     ex.r.method,
		Path:       ex.path,
	}
	if d, ok := transport.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	var p wire.Problem
	if len(data) <= maxErrorBody && strings.Contains(resp.Header.Get("Content-Type"), "json") &&
		json.Unmarshal(data, &p) == nil && (p.Code != "" || p.Title != "" || p.Detail != "") {
		e.Type = p.Type
		e.Title = scrub(p.Title, ex.lastToken)
		e.Detail = scrub(p.Detail, ex.lastToken)
		e.Code = p.Code
		if e.RequestID == "" {
			e.RequestID = p.RequestID
		}
		return e
	}
	e.Body = scrub(excerpt(data), ex.lastToken)
	return e
}

// drain reads a little of a discarded body, so its connection can be reused,
// and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

func (ex *exchange) logAttempt(ctx context.Context, resp *http.Response, err error, took time.Duration) {
	if !ex.logging(ctx) {
		return // no attributes built on every attempt of a client that does not log
	}
	attrs := []slog.Attr{slog.Int("attempt", ex.attempts), slog.Duration("duration", took)}
	if err != nil {
		ex.log(ctx, "scribe: attempt failed", append(attrs, slog.String("error", err.Error()))...)
		return
	}
	ex.log(ctx, "scribe: attempt", append(attrs,
		slog.Int("status", resp.StatusCode),
		slog.String("request_id", resp.Header.Get("Request-Id")))...)
}

// log writes one debug line naming the operation; it is given no header
// value, token or key.
func (ex *exchange) log(ctx context.Context, msg string, attrs ...slog.Attr) {
	if !ex.logging(ctx) {
		return
	}
	ex.s.logger.LogAttrs(ctx, slog.LevelDebug, msg, append([]slog.Attr{
		slog.String("method", ex.r.method), slog.String("path", ex.path)}, attrs...)...)
}

// logging reports whether the client has a logger that takes debug lines.
func (ex *exchange) logging(ctx context.Context) bool {
	return ex.s.logger != nil && ex.s.logger.Enabled(ctx, slog.LevelDebug)
}

// plural returns "1 attempt", "3 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
