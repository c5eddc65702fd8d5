package scribe

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strings"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
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
		cp.err = s.applyAll(opts)
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

// userAgent is the User-Agent of every request (docs/contract.md,
// "Versioning and User-Agent").
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

// do sends r with the client's settings and opts, retrying as the policy
// says, and decodes a 2xx body into out (unless out is nil). Any other answer
// is an *Error. The Response describes the final answer, whether the call
// succeeded or not; it is nil when no answer came.
func (c *Client) do(ctx context.Context, r request, out any, opts []Option) (*Response, error) {
	if c.err != nil {
		return nil, c.err
	}
	if ctx == nil {
		return nil, &ArgumentError{Func: r.method + " " + r.path(), Arg: "ctx", Reason: "is nil; pass context.Background() or a request's context"}
	}
	s := c.s
	if len(opts) > 0 {
		cp := c.s.clone()
		cp.perCall = true
		if err := cp.applyAll(opts); err != nil {
			return nil, err
		}
		s = &cp
	}
	path := r.path()
	u := c.baseURL.JoinPath(path)
	u.RawQuery = r.query.Encode()
	cl := &call{ctx: ctx, s: s, method: r.method, path: path, url: u.String()}
	if r.body != nil {
		var err error
		if cl.body, err = apijson.Marshal(r.body); err != nil {
			return nil, fmt.Errorf("scribe: %s %s: encoding the request body: %w", cl.method, cl.path, err)
		}
	}
	if r.method == http.MethodPost {
		if s.idemKey != nil {
			cl.idemKey = *s.idemKey
		} else {
			cl.idemKey = rand.Text() // 26 base32 characters, 130 random bits
		}
	}
	resp, data, err := cl.run()
	var rr *Response
	if resp != nil {
		rr = &Response{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: resp.Header.Get("Request-Id"), Attempts: cl.attempts}
		if s.responseInto != nil {
			*s.responseInto = *rr
		}
	}
	if err == nil && out != nil {
		err = cl.decode(resp, data, out)
	}
	if err != nil && cl.idemKey != "" && cl.attempts > 0 {
		err = withIdempotencyKey(err, cl.idemKey) // for IdempotencyKeyOf
	}
	return rr, err
}
