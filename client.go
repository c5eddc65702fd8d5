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
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/scribehq/scribe-go/internal/redact"
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
	// bearer is the Authorization value of the latest token this client
	// sent, reused while the token is the same (one per Client: a client
	// derived by WithOptions usually has a credential of its own).
	bearer *atomic.Pointer[bearerHeader]
}

// bearerHeader is the Authorization header value for one token, shared by
// every request sent with that token and never modified (as the User-Agent
// value is): building "Bearer "+token and its slice cost two allocations and
// a copy of the token on every attempt.
type bearerHeader struct {
	token string
	value []string
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
	c := &Client{baseURL: u, s: &s, basePath: strings.TrimRight(u.Path, "/"), bearer: new(atomic.Pointer[bearerHeader])}
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
	cp := &Client{baseURL: c.baseURL, s: &s, err: c.err, basePath: c.basePath, baseRawPath: c.baseRawPath, bearer: new(atomic.Pointer[bearerHeader])}
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
	// The URL is repeated with anything shaped like a credential redacted:
	// a key pasted into its query would otherwise reach the message.
	shown := redact.Text(u.Redacted())
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, bad(fmt.Sprintf("must be an absolute https:// URL, got %q", shown))
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, bad(fmt.Sprintf("has no host: %q", shown))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, bad(fmt.Sprintf("must not carry a query or fragment: %q", shown))
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
	cl := &call{ctx: ctx, s: s, r: *r, u: c.endpoint(r), bearer: c.bearer} // r by value: the caller's request stays on its stack
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
	m, resp, err := cl.run(out)
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

// call is the state of one operation across its attempts. go-retryablehttp
// runs the attempts (rc.Do); its hooks are plain functions that find the
// call through the request's context, which is the call itself (see
// Value), so that a call costs one allocation for its state and none for
// closures.
type call struct {
	ctx      context.Context // the caller's
	s        *settings
	r        request
	u        *url.URL
	bearer   *atomic.Pointer[bearerHeader] // the client's, nil for none
	body     []byte
	idemKey  string
	attempts int
	token    string        // the credential of the latest attempt, to scrub from what the service says
	opPath   string        // r.path(), computed when first needed
	start    time.Time     // when the latest attempt started, measured only for a debug logger
	took     time.Duration // how long the latest attempt took, measured only for a debug logger

	// replayable: a GET, or a POST with an Idempotency-Key.
	replayable bool
	// retries counts the retries done, across the 401 recovery too.
	retries int
	// retrying reports that checkRetry's latest verdict was "retry": an
	// error from rc.Do then means the wait ended with ctx (or the token
	// source failed before the next attempt).
	retrying bool
	// resp is the latest attempt's answer (nil after a connection error);
	// for a non-2xx, non-3xx answer apiErr is its error, built from its body
	// before go-retryablehttp drains it.
	resp   *http.Response
	apiErr *Error
	// err is the call's error after an attempt without an answer.
	err error
	// last is the failure the latest retry follows, for a call whose
	// context ends before the next answer.
	last error

	att transport.Attempt     // the attempt timeout, read by the round tripper
	rc  retryablehttp.Client  // the retry loop, built per call around s.hc
	req retryablehttp.Request // the request, its body replayed on every attempt
}

// A call is the context of its requests: the caller's context, plus the
// attempt bound for the round tripper. This is how go-retryablehttp's hooks
// (checkRetry and prepareRetry get the request's context) and the round
// tripper reach the per-call state without a closure or a context value
// allocated per call.

// Deadline implements context.Context: the caller's.
func (cl *call) Deadline() (time.Time, bool) { return cl.ctx.Deadline() }

// Done implements context.Context: the caller's.
func (cl *call) Done() <-chan struct{} { return cl.ctx.Done() }

// Err implements context.Context: the caller's.
func (cl *call) Err() error { return cl.ctx.Err() }

// Value implements context.Context: the attempt bound under
// transport.AttemptKey, the caller's values otherwise.
func (cl *call) Value(key any) any {
	if _, ok := key.(transport.AttemptKey); ok {
		return &cl.att
	}
	return cl.ctx.Value(key)
}

func (cl *call) path() string {
	if cl.opPath == "" {
		cl.opPath = cl.r.path()
	}
	return cl.opPath
}

// run sends the call through go-retryablehttp and returns its result and the
// final response (its body already consumed and closed), if any. Around the
// library's loop it adds one step of its own: after a 401 it invalidates the
// token and runs the loop once more with a fresh one.
func (cl *call) run(out any) (meta, *http.Response, error) {
	s := cl.s
	defer cl.att.Release()
	if s.timeout > 0 {
		cl.att.Timeout, cl.att.Cause = s.timeout, s.timeoutCause
	}
	h, err := cl.header()
	if err != nil {
		return meta{}, nil, cl.tokenFailure(err)
	}
	cl.req.Request = (&http.Request{
		Method:     cl.r.method,
		URL:        cl.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       cl.u.Host,
	}).WithContext(cl)
	if cl.body != nil {
		if err := cl.req.SetBody(cl.body); err != nil { // a []byte: replayed from a new reader on every attempt
			return meta{}, nil, fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
		}
	}
	rc := &cl.rc
	rc.HTTPClient = s.hc // its transport bounds each attempt (cl.att) and refuses redirects
	rc.CheckRetry = checkRetry
	rc.Backoff = chosenWait
	rc.PrepareRetry = prepareRetry
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler // the last answer or error, not "giving up after"

	var invalidator TokenInvalidator
	if ts, ok := s.credential.(*tokenSource); ok {
		invalidator, _ = ts.ts.(TokenInvalidator)
	}
	cl.replayable = cl.r.method != http.MethodPost || cl.idemKey != ""
	refreshed := false // the one 401 recovery has been used
	for {
		// checkRetry stops at the same count; RetryMax is the library's
		// bound should the two ever disagree.
		rc.RetryMax = s.maxRetries - cl.retries
		resp, err := rc.Do(&cl.req)
		if err != nil {
			var tokErr *tokenError
			switch {
			case errors.As(err, &tokErr):
				return meta{}, nil, cl.tokenFailure(tokErr)
			case cl.retrying:
				// ctx ended during the wait before a retry.
				return metaOf(cl.resp), cl.resp, cl.stopped(err, cl.last)
			case cl.err != nil:
				return meta{}, nil, cl.err
			}
			return meta{}, nil, fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), err)
		}
		m := metaOf(resp)
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode <= 299:
			err := cl.finish(resp, m, out)
			cl.att.Release()
			return m, resp, err
		case resp.StatusCode >= 300 && resp.StatusCode <= 399:
			// The service never redirects (CONTRACT §6): a 3xx is an answer
			// from something else, and is not followed.
			e := cl.apiError(resp)
			cl.att.Release()
			return m, resp, e
		}
		e := cl.apiErr
		if e == nil { // checkRetry saw every answer; never nil in practice
			e = cl.apiError(resp)
		}
		if resp.StatusCode == http.StatusUnauthorized && !refreshed && invalidator != nil && cl.token != "" {
			// The token was refused (revoked key, clock skew, ...): drop it
			// and try once more with a fresh one. Never twice.
			refreshed = true
			invalidator.Invalidate(cl.token)
			cl.log(slog.LevelInfo, "scribe: token refused; retrying once with a fresh token", slog.Int("attempt", cl.attempts))
			next := *cl.req.Request // a copy, as go-retryablehttp makes before a retry: the sent request is not reused
			if err := cl.prepare(&next); err != nil {
				return meta{}, nil, cl.tokenFailure(err)
			}
			cl.req.Request = &next
			continue
		}
		return m, resp, e
	}
}

// metaOf is what a call reports of resp (none for nil).
func metaOf(resp *http.Response) meta {
	if resp == nil {
		return meta{}
	}
	return meta{statusCode: resp.StatusCode, requestID: resp.Header.Get("Request-Id")}
}

// checkRetry is go-retryablehttp's CheckRetry: it decides, after every
// attempt and before the library drains the answer, whether to retry.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	cl, ok := ctx.(*call)
	if !ok { // not a request of ours
		return false, nil
	}
	return cl.checkRetry(resp, err), nil
}

// chosenWait is go-retryablehttp's Backoff: the wait checkRetry chose, which
// it leaves in the per-call client's RetryWaitMin (the hook sees no other
// per-call state when the attempt got no answer).
func chosenWait(wait, _ time.Duration, _ int, _ *http.Response) time.Duration { return wait }

// prepareRetry is go-retryablehttp's PrepareRetry: it gives the library's
// copy of the request for the next attempt a fresh header (the token source
// may have refreshed during the wait). The Idempotency-Key and the body stay
// the same.
func prepareRetry(req *http.Request) error {
	cl, ok := req.Context().(*call)
	if !ok {
		return nil
	}
	return cl.prepare(req)
}

// prepare readies req for the next attempt.
func (cl *call) prepare(req *http.Request) error {
	h, err := cl.header()
	if err != nil {
		return err
	}
	req.Header = h
	return nil
}

// header counts a new attempt and returns its header, with a token from the
// credential. A fresh map every attempt: the previous request may still be
// read by its connection.
func (cl *call) header() (http.Header, error) {
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
		tok, err := s.credential.token(cl.ctx)
		if err != nil {
			return nil, &tokenError{fmt.Errorf("token source: %w", err)}
		}
		if tok == "" || !validToken(tok) {
			return nil, &tokenError{errors.New("token source returned an empty token or one with spaces or control characters")}
		}
		cl.token = tok
		h["Authorization"] = cl.authorization(tok)
	}
	if cl.idemKey != "" {
		h["Idempotency-Key"] = []string{cl.idemKey}
	}
	if cl.body != nil {
		h["Content-Type"] = contentTypeJSON
	}
	if cl.logging(slog.LevelDebug) {
		cl.start = time.Now()
	}
	return h, nil
}

// authorization returns the Authorization header value for tok: the
// client's cached one when the token is the one it was built for.
func (cl *call) authorization(tok string) []string {
	if cl.bearer == nil {
		return []string{"Bearer " + tok}
	}
	if b := cl.bearer.Load(); b != nil && b.token == tok {
		return b.value
	}
	b := &bearerHeader{token: tok, value: []string{"Bearer " + tok}}
	cl.bearer.Store(b)
	return b.value
}

// tokenFailure is the call's error when the credential failed; it stops the
// call at once.
func (cl *call) tokenFailure(err error) error {
	var tokErr *tokenError
	if errors.As(err, &tokErr) {
		err = tokErr.err
	}
	return fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
}

// checkRetry decides after each attempt: it logs the attempt, reads the
// error body of a non-2xx answer into cl.apiErr (so that the *Error survives
// the library's drain), and reports whether to retry, after choosing the wait.
func (cl *call) checkRetry(resp *http.Response, err error) bool {
	s := cl.s
	cl.retrying, cl.resp, cl.apiErr = false, resp, nil
	if !cl.start.IsZero() {
		cl.took = time.Since(cl.start)
	}
	if err != nil {
		if ctxErr := cl.ctx.Err(); ctxErr != nil {
			cl.err = cl.stopped(ctxErr, cl.last)
			return false
		}
		retryable := transport.RetryableError(err) // on the *url.Error, which the policy inspects
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL; ours names the operation
		}
		if errors.Is(err, transport.ErrRedirect) {
			cl.err = fmt.Errorf("scribe: %s %s: %w", cl.r.method, cl.path(), err)
			return false
		}
		cl.logAttemptErr(err)
		last := fmt.Errorf("scribe: %s %s (%s): %w", cl.r.method, cl.path(), plural(cl.attempts, "attempt"), err)
		cl.err = last
		if !cl.replayable || !retryable {
			return false
		}
		if cl.retries >= s.maxRetries {
			cl.giveUp("retries exhausted", last)
			return false
		}
		return cl.schedule(transport.Jitter(s.waitMin, s.waitMax, cl.retries, transport.RandN), last)
	}
	cl.logAttempt(resp)
	if resp.StatusCode >= 200 && resp.StatusCode <= 399 {
		return false // the body is read (2xx) or the error built (3xx) by run
	}
	e := cl.apiError(resp)
	cl.att.Release()
	resp.Body = http.NoBody // read and closed; nothing left for the library to drain
	cl.apiErr = e
	// A 401 is not retryable: run handles its one recovery.
	if !cl.replayable || !transport.Retryable(cl.r.method, resp.StatusCode, e.Code) {
		return false
	}
	if cl.retries >= s.maxRetries {
		cl.giveUp("retries exhausted", e)
		return false
	}
	wait, ok := transport.RetryAfter(resp.Header, time.Now())
	if ok && wait > transport.RetryAfterCap {
		cl.giveUp("Retry-After beyond the cap", e)
		return false
	}
	if !ok {
		wait = transport.Jitter(s.waitMin, s.waitMax, cl.retries, transport.RandN)
	}
	return cl.schedule(wait, e)
}

// schedule settles a retry after wait, unless the wait would outlast ctx's
// deadline: then it is not started, and the call returns the last failure
// at once. go-retryablehttp sleeps the wait (chosenWait), stopping early if
// ctx ends.
func (cl *call) schedule(wait time.Duration, last error) bool {
	if dl, ok := cl.ctx.Deadline(); ok && time.Until(dl) <= wait {
		cl.giveUp("the wait would outlast the context deadline", last, slog.Duration("wait", wait))
		return false
	}
	if cl.logging(slog.LevelInfo) {
		cl.log(slog.LevelInfo, "scribe: retrying", slog.Int("attempt", cl.attempts), slog.Duration("wait", wait),
			slog.String("error", scrub(last.Error(), cl.token)))
	}
	cl.rc.RetryWaitMin, cl.rc.RetryWaitMax = wait, wait
	cl.last = last
	cl.retries++
	cl.retrying = true
	return true
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
	// out points to a zero value (every caller declares it for this call):
	// transcripts take decode.go's fast path, the rest json.Unmarshal.
	if err := unmarshalResponse(data, out); err != nil {
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
	e.Body = excerpt(data, tok)
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

func (cl *call) logAttempt(resp *http.Response) {
	if !cl.logging(slog.LevelDebug) {
		return // no attributes built on every attempt of a client that does not log
	}
	cl.log(slog.LevelDebug, "scribe: attempt",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", cl.took),
		slog.Int("status", resp.StatusCode),
		slog.String("request_id", scrubField(resp.Header.Get("Request-Id"), cl.token, maxRequestIDLen)))
}

func (cl *call) logAttemptErr(err error) {
	if !cl.logging(slog.LevelDebug) {
		return
	}
	cl.log(slog.LevelDebug, "scribe: attempt failed",
		slog.Int("attempt", cl.attempts), slog.Duration("duration", cl.took),
		slog.String("error", scrub(err.Error(), cl.token)))
}

// giveUp logs, at Warn, that a call stops after a retryable failure.
func (cl *call) giveUp(reason string, last error, attrs ...slog.Attr) {
	if !cl.logging(slog.LevelWarn) {
		return
	}
	cl.log(slog.LevelWarn, "scribe: giving up", append([]slog.Attr{
		slog.String("reason", reason), slog.Int("attempts", cl.attempts),
		slog.String("error", scrub(last.Error(), cl.token))}, attrs...)...)
}

// log writes one line naming the operation; it is given no header value,
// token or key.
func (cl *call) log(level slog.Level, msg string, attrs ...slog.Attr) {
	if !cl.logging(level) {
		return
	}
	cl.s.logger.LogAttrs(cl.ctx, level, msg, append([]slog.Attr{
		slog.String("method", cl.r.method), slog.String("path", cl.path())}, attrs...)...)
}

// logging reports whether the client has a logger that takes lines of level.
func (cl *call) logging(level slog.Level) bool {
	return cl.s.logger != nil && cl.s.logger.Enabled(cl.ctx, level)
}

// plural returns "1 attempt", "3 attempts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
