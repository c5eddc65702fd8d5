package scribe

import (
	"bytes"
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
	// basePath and baseRawPath are the base URL's path (and its escaped
	// form, when it differs) without a trailing slash; the operation paths
	// are appended to them.
	basePath    string
	baseRawPath string
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
	s.finalize()
	c := &Client{baseURL: u, s: &s, basePath: strings.TrimRight(u.Path, "/")}
	if u.RawPath != "" {
		c.baseRawPath = strings.TrimRight(u.RawPath, "/")
	}
	return c, nil
}

// WithOptions returns a copy of c with opts applied on top of c's settings.
// The copy shares c's HTTP client, hence its transport and connection pool,
// unless opts include WithHTTPClient: this is how a backend derives one client
// per installation (WithTokenSource) from one configured client. A credential
// option replaces c's credential. Since WithOptions returns no error, an
// invalid option makes every call of the copy fail with its *ArgumentError.
func (c *Client) WithOptions(opts ...Option) *Client {
	s := c.s.clone()
	cp := &Client{baseURL: c.baseURL, s: &s, err: c.err, basePath: c.basePath, baseRawPath: c.baseRawPath}
	if cp.err == nil {
		cp.err = cp.s.applyAll(opts)
	}
	s.finalize()
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
	rawQuery string // used instead of query when not empty (already encoded)
	body     any    // marshalled to JSON when not nil
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
	// resp is the final response's metadata; set only when the caller asked
	// for it (wantResponse), since building it costs an allocation.
	resp *Response
}

// Header values the client sends on every request; shared, never modified.
var (
	acceptJSON      = []string{"application/json"}
	contentTypeJSON = []string{"application/json"}
)

// endpoint returns the absolute URL of the operation: the base URL's path
// followed by the escaped segments, and the query.
func (c *Client) endpoint(r *request) *url.URL {
	n := len(c.basePath)
	escaped := c.baseRawPath != ""
	for _, seg := range r.segments {
		n += 1 + len(seg)
		if !escaped && url.PathEscape(seg) != seg {
			escaped = true
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(c.basePath)
	for _, seg := range r.segments {
		b.WriteByte('/')
		b.WriteString(seg)
	}
	u := &url.URL{Scheme: c.baseURL.Scheme, Host: c.baseURL.Host, Path: b.String()}
	if escaped {
		raw := c.baseRawPath
		if raw == "" {
			raw = c.basePath
		}
		u.RawPath = raw + r.path()
	}
	if r.rawQuery != "" {
		u.RawQuery = r.rawQuery
	} else if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	return u
}

// do sends r with the client's settings and opts, retrying as the policy
// says, and decodes a 2xx body into out (unless out is nil). Any other answer
// is an *Error.
func (c *Client) do(ctx context.Context, r request, out any, opts []Option) (meta, error) {
	return c.doInto(ctx, &r, out, opts, false)
}

// doInto is do; wantResponse asks for meta.resp even when the caller gave no
// WithResponseInto (the pager keeps it on each page).
func (c *Client) doInto(ctx context.Context, r *request, out any, opts []Option, wantResponse bool) (meta, error) {
	if c.err != nil {
		return meta{}, c.err
	}
	if ctx == nil {
		return meta{}, &ArgumentError{Func: r.method + " " + r.path(), Arg: "ctx", Reason: "is nil; pass context.Background() or a request's context"}
	}
	s := c.s
	if hasOptions(opts) {
		cp := c.s.clone()
		cp.perCall = true
		if err := cp.applyAll(opts); err != nil {
			return meta{}, err
		}
		cp.finalize()
		s = &cp
	}
	cl := call{s: s, r: r, u: c.endpoint(r)}
	if r.body != nil {
		var err error
		if cl.body, err = json.Marshal(r.body); err != nil {
			return meta{}, fmt.Errorf("scribe: %s %s: encoding the request body: %w", r.method, r.path(), err)
		}
	}
	if r.method == http.MethodPost {
		if s.idemKey != nil {
			cl.idemKey = *s.idemKey
		} else {
			cl.idemKey = rand.Text() // 26 base32 characters, 130 random bits
		}
	}
	m, resp, err := cl.run(ctx, out)
	if resp != nil && (wantResponse || s.responseInto != nil) {
		m.resp = &Response{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: m.requestID, Attempts: cl.attempts}
		if s.responseInto != nil {
			*s.responseInto = *m.resp
		}
	}
	return m, err
}

// hasOptions reports whether opts holds an Option that does something.
func hasOptions(opts []Option) bool {
	for _, o := range opts {
		if o.apply != nil {
			return true
		}
	}
	return false
}

// call is the state of one operation across its attempts.
type call struct {
	s        *settings
	r        *request
	u        *url.URL
	body     []byte
	idemKey  string
	attempts int
	token    string        // the credential of the latest attempt, to scrub from what the service says
	opPath   string        // r.path(), computed when first needed
	took     time.Duration // how long the latest attempt took, measured only for a debug logger
	// retryableErr reports whether the latest attempt's failure (no answer)
	// is worth another attempt.
	retryableErr bool
}

func (cl *call) path() string {
	if cl.opPath == "" {
		cl.opPath = cl.r.path()
	}
	return cl.opPath
}

func nop() {}

// run sends the attempts of the call and returns its result and the final
// response (its body already consumed and closed), if any.
func (cl *call) run(ctx context.Context, out any) (meta, *http.Response, error) {
	s := cl.s
	var invalidator TokenInvalidator
	if ts, ok := s.credential.(*tokenSource); ok {
		invalidator, _ = ts.ts.(TokenInvalidator)
	}
	replayable := cl.r.method != http.MethodPost || cl.idemKey != ""
	refreshed := false // the one 401 recovery has been used
	retries := 0
	var last error // the latest attempt's failure, for a give-up
	for {
		resp, cancel, err := cl.attempt(ctx)
		if err != nil {
			cancel()
			if ctxErr := ctx.Err(); ctxErr != nil {
				return meta{}, nil, cl.stopped(ctxErr, last)
			}
			var tokErr *tokenError
			if errors.As(err, &tokErr) {
				return meta{}, nil, fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), tokErr.err)
			}
			if errors.Is(err, transport.ErrRedirect) {
				return meta{}, nil, fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
			}
			cl.logAttemptErr(ctx, err)
			last = fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), err)
			if !replayable || !cl.retryableErr {
				return meta{}, nil, last
			}
			if retries >= s.maxRetries {
				cl.giveUp(ctx, "retries exhausted", last)
				return meta{}, nil, last
			}
			wait := transport.Jitter(s.waitMin, s.waitMax, retries, transport.RandN)
			if err := cl.sleep(ctx, wait, last); err != nil {
				return meta{}, nil, err
			}
			retries++
			continue
		}
		cl.logAttempt(ctx, resp)
		m := meta{statusCode: resp.StatusCode, requestID: resp.Header.Get("Request-Id")}
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode <= 299:
			err := cl.finish(resp, m, out)
			cancel()
			return m, resp, err
		case resp.StatusCode >= 300 && resp.StatusCode <= 399:
			// The service never redirects (CONTRACT §6): a 3xx is an answer
			// from something else, and is not followed.
			e := cl.apiError(resp)
			cancel()
			return m, resp, e
		}
		e := cl.apiError(resp)
		cancel()
		if resp.StatusCode == http.StatusUnauthorized && !refreshed && invalidator != nil && cl.token != "" {
			// The token was refused (revoked key, clock skew, ...): drop it
			// and try once more with a fresh one. Never twice.
			refreshed = true
			invalidator.Invalidate(cl.token)
			cl.log(ctx, slog.LevelInfo, "scribe: token refused; retrying once with a fresh token", slog.Int("attempt", cl.attempts))
			continue
		}
		if !replayable || !transport.Retryable(cl.r.method, resp.StatusCode, e.Code) {
			return m, resp, e
		}
		if retries >= s.maxRetries {
			cl.giveUp(ctx, "retries exhausted", e)
			return m, resp, e
		}
		wait, ok := transport.RetryAfter(resp.Header, time.Now())
		if ok && wait > transport.RetryAfterCap {
			cl.giveUp(ctx, "Retry-After beyond the cap", e)
			return m, resp, e
		}
		if !ok {
			wait = transport.Jitter(s.waitMin, s.waitMax, retries, transport.RandN)
		}
		if err := cl.sleep(ctx, wait, e); err != nil {
			if errors.Is(err, errPastDeadline) {
				return m, resp, e
			}
			return m, resp, err
		}
		retries++
		last = e
	}
}

// errPastDeadline reports that a wait would outlast the context's deadline.
var errPastDeadline = errors.New("the wait would outlast the context deadline")

// sleep waits before the next attempt. A wait that would outlast ctx's
// deadline is not started: sleep returns errPastDeadline at once (the caller
// returns the last failure). If ctx ends during the wait, sleep returns the
// call's error for that.
func (cl *call) sleep(ctx context.Context, wait time.Duration, last error) error {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		cl.giveUp(ctx, "the wait would outlast the context deadline", last, slog.Duration("wait", wait))
		if _, isAPI := last.(*Error); isAPI {
			return errPastDeadline
		}
		return last
	}
	if cl.logging(ctx, slog.LevelInfo) {
		cl.log(ctx, slog.LevelInfo, "scribe: retrying", slog.Int("attempt", cl.attempts), slog.Duration("wait", wait),
			slog.String("error", scrub(last.Error(), cl.token)))
	}
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return cl.stopped(ctx.Err(), last)
	case <-t.C:
		return nil
	}
}

// stopped is the error of a call whose context ended: it wraps both the
// context's error and, when there was one, the last failure.
func (cl *call) stopped(ctxErr, last error) error {
	if last != nil {
		return fmt.Errorf("scribe: %s %s (%s): %w; last failure: %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), ctxErr, last)
	}
	return fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), ctxErr)
}

// tokenError is a failure of the credential; it stops the call at once.
type tokenError struct{ err error }

func (e *tokenError) Error() string { return e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }

// attempt sends the request once, bounded by the per-attempt timeout. The
// returned cancel releases that timeout; call it once the body is read.
func (cl *call) attempt(ctx context.Context) (*http.Response, context.CancelFunc, error) {
	s := cl.s
	cl.attempts++
	h := make(http.Header, len(s.header)+5)
	for k, v := range s.header {
		h[k] = v
	}
	h["User-Agent"] = s.uaHeader
	h["Accept"] = acceptJSON
	cl.token = ""
	if s.credential != nil {
		tok, err := s.credential.token(ctx)
		if err != nil {
			return nil, nop, &tokenError{fmt.Errorf("token source: %w", err)}
		}
		if tok == "" || !validToken(tok) {
			return nil, nop, &tokenError{errors.New("token source returned an empty token or one with spaces or control characters")}
		}
		cl.token = tok
		h["Authorization"] = []string{"Bearer " + tok}
	}
	if cl.idemKey != "" {
		h["Idempotency-Key"] = []string{cl.idemKey}
	}
	actx, cancel := ctx, context.CancelFunc(nop)
	if s.timeout > 0 {
		// A caller's deadline that comes first bounds the attempt already:
		// no timer of our own then.
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > s.timeout {
			actx, cancel = context.WithTimeoutCause(ctx, s.timeout, s.timeoutCause)
		}
	}
	req := (&http.Request{
		Method:     cl.r.method,
		URL:        cl.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       cl.u.Host,
	}).WithContext(actx)
	if cl.body != nil {
		h["Content-Type"] = contentTypeJSON
		body := cl.body
		req.ContentLength = int64(len(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	var start time.Time
	if cl.logging(ctx, slog.LevelDebug) {
		start = time.Now()
	}
	resp, err := s.hc.Do(req)
	if !start.IsZero() {
		cl.took = time.Since(start)
	}
	if err != nil {
		cl.retryableErr = transport.RetryableError(err) // on the *url.Error, which the policy inspects
		if cause := context.Cause(actx); cause == s.timeoutCause && ctx.Err() == nil {
			err = cause
		} else {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // its message repeats the URL; ours names the operation
			}
		}
		return nil, cancel, err
	}
	return resp, cancel, nil
}

// finish reads a 2xx body, bounded by the response limit, and decodes it
// into out.
func (cl *call) finish(resp *http.Response, m meta, out any) error {
	limit := cl.s.maxResponseBytes
	if out == nil {
		drain(resp)
		return nil
	}
	tooLarge := func() error {
		resp.Body.Close() // unread: the connection is discarded, not drained
		return &ResponseTooLargeError{Method: cl.r.method, Path: cl.path(), StatusCode: resp.StatusCode, RequestID: scrubField(m.requestID, cl.token, maxRequestIDLen), Limit: limit}
	}
	if resp.ContentLength > limit {
		return tooLarge()
	}
	data, err := readBody(resp.Body, resp.ContentLength, limit)
	if errors.Is(err, errBodyTooLarge) {
		return tooLarge()
	}
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("scribe: %s %s: reading the %d response: %w", cl.r.method, cl.path(), resp.StatusCode, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &DecodeError{Method: cl.r.method, Path: cl.path(), StatusCode: resp.StatusCode, RequestID: scrubField(m.requestID, cl.token, maxRequestIDLen), Err: err}
	}
	return nil
}

var errBodyTooLarge = errors.New("body too large")

// readBody reads r to its end, at most limit bytes (errBodyTooLarge beyond).
// A known length sizes the buffer once, so that the body is not copied as
// the buffer grows; an unknown one is read by io.ReadAll through a limit.
func readBody(r io.Reader, length, limit int64) ([]byte, error) {
	if length < 0 || length >= limit {
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		if int64(len(data)) > limit {
			return nil, errBodyTooLarge
		}
		return data, err
	}
	buf := make([]byte, 0, length+1) // room for the read that sees EOF
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if over := limit + 1 - int64(len(buf)); int64(len(room)) > over {
			room = room[:over]
		}
		n, err := r.Read(room)
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// apiError reads at most maxErrorBody bytes of a non-2xx answer into an
// *Error, closes the body, and scrubs every field taken from the answer.
func (cl *call) apiError(resp *http.Response) *Error {
	tok := cl.token
	e := &Error{
		StatusCode:     resp.StatusCode,
		RequestID:      scrubField(resp.Header.Get("Request-Id"), tok, maxRequestIDLen),
		Method:         cl.r.method,
		Path:           cl.path(),
		IdempotencyKey: cl.idemKey,
	}
	if d, ok := transport.RetryAfter(resp.Header, time.Now()); ok {
		e.RetryAfter = d
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		e.RedirectHost = "(none)"
		if loc, err := resp.Location(); err == nil && loc.Host != "" {
			e.RedirectHost = scrubField(loc.Host, tok, maxRedirectHostLen)
		}
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	resp.Body.Close() // read to the end when the body was small: the connection is reused
	var p wire.Problem
	if len(data) <= maxErrorBody && strings.Contains(resp.Header.Get("Content-Type"), "json") &&
		json.Unmarshal(data, &p) == nil && (p.Code != "" || p.Title != "" || p.Detail != "") {
		e.Type = scrubField(p.Type, tok, maxTypeLen)
		e.Title = scrubField(p.Title, tok, maxTitleLen)
		e.Detail = scrubField(p.Detail, tok, maxDetailLen)
		e.Code = scrubField(p.Code, tok, maxCodeLen)
		if e.RequestID == "" {
			e.RequestID = scrubField(p.RequestID, tok, maxRequestIDLen)
		}
		return e
	}
	e.Body = scrub(excerpt(data), tok)
	return e
}

// drain reads a little of a discarded body, so its connection can be reused,
// and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// Logging levels (docs/client.md, Logging): each attempt at Debug; a retry
// and the 401 recovery at Info; a give-up after retryable failures at Warn.

func (cl *call) logAttempt(ctx context.Context, resp *http.Response) {
	if !cl.logging(ctx, slog.LevelDebug) {
		return // no attributes built on every attempt of a client that does not log
	}
	cl.log(ctx, slog.LevelDebug, "scribe: attempt",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", cl.took),
		slog.Int("status", resp.StatusCode),
		slog.String("request_id", scrubField(resp.Header.Get("Request-Id"), cl.token, maxRequestIDLen)))
}

func (cl *call) logAttemptErr(ctx context.Context, err error) {
	if !cl.logging(ctx, slog.LevelDebug) {
		return
	}
	cl.log(ctx, slog.LevelDebug, "scribe: attempt failed",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", cl.took),
		slog.String("error", scrub(err.Error(), cl.token)))
}

// giveUp logs, at Warn, that a call stops after a retryable failure.
func (cl *call) giveUp(ctx context.Context, reason string, last error, attrs ...slog.Attr) {
	if !cl.logging(ctx, slog.LevelWarn) {
		return
	}
	cl.log(ctx, slog.LevelWarn, "scribe: giving up", append([]slog.Attr{
		slog.String("reason", reason), slog.Int("attempts", cl.attempts),
		slog.String("error", scrub(last.Error(), cl.token))}, attrs...)...)
}

// log writes one line naming the operation; it is given no header value,
// token or key.
func (cl *call) log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if !cl.logging(ctx, level) {
		return
	}
	cl.s.logger.LogAttrs(ctx, level, msg, append([]slog.Attr{
		slog.String("method", cl.r.method), slog.String("path", cl.path())}, attrs...)...)
}

// logging reports whether the client has a logger that takes lines of level.
func (cl *call) logging(ctx context.Context, level slog.Level) bool {
	return cl.s.logger != nil && cl.s.logger.Enabled(ctx, level)
}

// plural returns "1 attempt", "3 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
