package scribe

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
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
// per installation (WithTokenSource) from one configured client, although
// InstallationClients does it for many. A credential option replaces c's
// credential. An invalid option, or one that applies to a single call
// (WithIdempotencyKey, WithResponseInto), is an *ArgumentError, and c is
// left as it was.
func (c *Client) WithOptions(opts ...Option) (*Client, error) {
	s := c.s.clone()
	if err := s.applyAll(opts); err != nil {
		return nil, err
	}
	return &Client{baseURL: c.baseURL, s: &s}, nil
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
	op    Operation // its Name, Method and PathTemplate
	path  string    // the path below the base URL, escaped: "/transcripts/42"
	query string    // encoded, "" for none
	body  any       // marshalled to JSON when not nil
}

// newRequest returns the request of the operation name, sent with method to
// template with each "{...}" placeholder replaced, in order, by one of ids.
func newRequest(name, method, template string, ids ...int64) request {
	path := template
	for _, id := range ids {
		before, rest, _ := strings.Cut(path, "{")
		_, after, _ := strings.Cut(rest, "}")
		path = before + strconv.FormatInt(id, 10) + after
	}
	return request{op: Operation{Name: name, Method: method, PathTemplate: template}, path: path}
}

// do sends r with the client's settings and opts, retrying as the policy
// says, and decodes a 2xx body into out (unless out is nil). Any other answer
// is an *Error. The Response describes the final answer, whether the call
// succeeded or not; it is nil when no answer came.
func (c *Client) do(ctx context.Context, r request, out any, opts []Option) (*Response, error) {
	if ctx == nil {
		return nil, &ArgumentError{Func: r.op.Name, Arg: "ctx", Reason: "is nil; pass context.Background() or a request's context"}
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
	u := c.baseURL.JoinPath(r.path)
	u.RawQuery = r.query
	cl := &call{s: s, op: r.op, method: r.op.Method, path: r.path, url: u.String(), send: chain(s.middleware, s.hc.Do)}
	if r.body != nil {
		var err error
		if cl.body, err = apijson.Marshal(r.body); err != nil {
			return nil, &ArgumentError{Func: r.op.Name, Arg: "body", Reason: "cannot be encoded as JSON: " + err.Error()}
		}
	}
	if r.op.Method == http.MethodPost {
		if s.idemKey != nil {
			cl.idemKey = *s.idemKey
		} else {
			cl.idemKey = rand.Text() // 26 base32 characters, 130 random bits
		}
	}
	ctx, end := startOperation(ctx, r.op, s.hooks)
	cl.ctx = ctx
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
	if end != nil {
		end(rr, err)
	}
	return rr, err
}
