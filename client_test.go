package scribe_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// TestNewClientBaseURL protects the base URL rules: absolute http(s), no
// credentials, query or fragment, and plain http only to loopback hosts
// unless WithInsecureHTTP is given.
func TestNewClientBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url      string
		insecure bool
		wantErr  string // a part of the error message; "" means accepted
	}{
		{"https://api.example.com/v1", false, ""},
		{"https://api.example.com", false, ""},
		{"http://localhost:8080", false, ""},
		{"http://LOCALHOST/v1", false, ""},
		{"http://127.0.0.1:9000/v1", false, ""},
		{"http://127.8.9.10", false, ""},
		{"http://[::1]:8080", false, ""},
		{"http://api.example.com", false, "WithInsecureHTTP"},
		{"http://10.0.0.5:8080", false, "clear text"},
		{"http://api.example.com", true, ""},
		{"", false, "is empty"},
		{"api.example.com/v1", false, "absolute https://"},
		{"ftp://api.example.com", false, "absolute https://"},
		{"https://", false, "no host"},
		{"https://user:hunter2@api.example.com", false, "must not carry credentials"},
		{"https://api.example.com/v1?x=1", false, "query or fragment"},
		{"https://api.example.com/v1#top", false, "query or fragment"},
		{"https://api.example.com/v1?key=" + testDevKey, false, "query or fragment"},
		{"api.example.com/v1?key=" + testDevKey, false, "absolute https://"},
		{"https://api.example.com/%zz", false, "not a valid URL"},
	}
	for _, tt := range tests {
		opts := []scribe.Option{}
		if tt.insecure {
			opts = append(opts, scribe.WithInsecureHTTP())
		}
		c, err := scribe.NewClient(tt.url, opts...)
		if tt.wantErr == "" {
			if err != nil || c == nil {
				t.Errorf("NewClient(%q) = %v, want a client", tt.url, err)
			}
			continue
		}
		var ae *scribe.ArgumentError
		if !errors.As(err, &ae) || ae.Arg != "baseURL" {
			t.Errorf("NewClient(%q) err = %v (%T), want *ArgumentError on baseURL", tt.url, err, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("NewClient(%q) err = %q, want it to mention %q", tt.url, err, tt.wantErr)
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "TESTKEY") {
			t.Errorf("NewClient(%q) err = %q leaks the password or key", tt.url, err)
		}
	}
}

// TestOptionsRefuseBadValues protects that every option with a bad value
// makes NewClient fail with an *ArgumentError naming the option.
func TestOptionsRefuseBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opt      scribe.Option
		wantFunc string
	}{
		{scribe.WithDeveloperKey(auth.DeveloperKey{}), "WithDeveloperKey"},
		{scribe.WithTokenSource(nil), "WithTokenSource"},
		{scribe.WithHTTPClient(nil), "WithHTTPClient"},
		{scribe.WithRequestTimeout(-1), "WithRequestTimeout"},
		{scribe.WithMaxRetries(-1), "WithMaxRetries"},
		{scribe.WithRetryWait(2, 1), "WithRetryWait"},
		{scribe.WithRetryWait(-1, 1), "WithRetryWait"},
		{scribe.WithUserAgentSuffix("bad\nsuffix"), "WithUserAgentSuffix"},
		{scribe.WithIdempotencyKey("k"), "WithIdempotencyKey"}, // per call only
		{scribe.WithHeader("Authorization", "Bearer x"), "WithHeader"},
		{scribe.WithHeader("bad header", "x"), "WithHeader"},
		{scribe.WithHeader("X-Trace", "a\nb"), "WithHeader"},
	}
	for _, tt := range tests {
		_, err := scribe.NewClient(testBase, tt.opt)
		var ae *scribe.ArgumentError
		if !errors.As(err, &ae) || ae.Func != tt.wantFunc {
			t.Errorf("NewClient with a bad %s: err = %v, want *ArgumentError from %s", tt.wantFunc, err, tt.wantFunc)
		}
	}
	if _, err := scribe.NewClient(testBase, scribe.Option{}); err != nil {
		t.Errorf("the zero Option: %v, want it ignored", err)
	}
}

// TestWithHeaderReserved protects that WithHeader cannot silently replace
// the headers the client sets itself, and that other headers are sent.
func TestWithHeaderReserved(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"authorization", "Idempotency-Key", "User-Agent", "Content-Type", "Content-Length", "Host"} {
		f := newFake(t, ok(userJSON))
		_, err := f.client().GetMe(context.Background(), scribe.WithHeader(h, "x"))
		var ae *scribe.ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("WithHeader(%q): err = %v, want *ArgumentError", h, err)
		}
		if len(f.requests()) != 0 {
			t.Errorf("WithHeader(%q): a request was sent", h)
		}
	}
	f := newFake(t, ok(userJSON))
	if _, err := f.client().GetMe(context.Background(), scribe.WithHeader("x-trace-id", "abc")); err != nil {
		t.Fatal(err)
	}
	if got := f.requests()[0].Header.Get("X-Trace-Id"); got != "abc" {
		t.Errorf("X-Trace-Id = %q, want abc", got)
	}
}

// TestUserAgentSuffix protects the User-Agent shape of docs/contract.md, "Versioning and User-Agent" plus the suffix.
func TestUserAgentSuffix(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(userJSON))
	if _, err := f.client(scribe.WithUserAgentSuffix("crm-sync/1.4")).GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	ua := f.requests()[0].Header.Get("User-Agent")
	if !strings.HasPrefix(ua, "scribe-go/"+scribe.Version+" (interface "+scribe.InterfaceVersion+"; go") || !strings.HasSuffix(ua, ") crm-sync/1.4") {
		t.Errorf("User-Agent = %q", ua)
	}
}

// TestNoCredential protects the decision that a client without a credential
// sends no Authorization header (and the service's 401 comes back as
// ErrUnauthorized).
func TestNoCredential(t *testing.T) {
	t.Parallel()
	f := newFake(t, problem(401, scribe.CodeMissingToken, "no token"))
	c, err := scribe.NewClient(testBase, scribe.WithHTTPClient(&http.Client{Transport: f.mt}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetMe(context.Background())
	if !errors.Is(err, scribe.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrUnauthorized", err)
	}
	if h, ok := f.requests()[0].Header["Authorization"]; ok {
		t.Errorf("Authorization sent: %q", h)
	}
}

// TestWithOptions protects that a derived client shares the transport, gets
// its own credential, and leaves the original untouched.
func TestWithOptions(t *testing.T) {
	t.Parallel()
	f := newFake(t, ok(userJSON))
	base := f.client()
	scoped, err := base.WithOptions(scribe.WithTokenSource(plainTokens{"installation.jwt.token"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := scoped.GetMe(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := base.GetMe(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests() // both went through the one transport
	got := []string{reqs[0].Header.Get("Authorization"), reqs[1].Header.Get("Authorization")}
	want := []string{"Bearer installation.jwt.token", "Bearer " + testDevKey}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Authorization of scoped, then base (-want +got):\n%s", diff)
	}
}

// TestOptionScopes protects that every option is refused, with an
// *ArgumentError naming it and before anything is sent, where it does not
// apply: a call-only option by NewClient and WithOptions, a client-only
// option by a call; and that an invalid option given to WithOptions is its
// error, not a client whose calls all fail.
func TestOptionScopes(t *testing.T) {
	t.Parallel()
	clientOnly := map[string]scribe.Option{
		"WithHTTPClient":   scribe.WithHTTPClient(http.DefaultClient),
		"WithDeveloperKey": scribe.WithDeveloperKey(testDeveloperKey),
		"WithTokenSource":  scribe.WithTokenSource(plainTokens{"tok"}),
		"WithLogger":       scribe.WithLogger(slog.Default()),
		"WithInsecureHTTP": scribe.WithInsecureHTTP(),
	}
	callOnly := map[string]scribe.Option{
		"WithIdempotencyKey": scribe.WithIdempotencyKey("order-7"),
		"WithResponseInto":   scribe.WithResponseInto(new(scribe.Response)),
	}
	refused := func(where string, err error, name string) {
		t.Helper()
		var ae *scribe.ArgumentError
		if !errors.As(err, &ae) || ae.Func != name {
			t.Errorf("%s %s: err = %v, want the *ArgumentError of %s", name, where, err, name)
		}
	}
	f := newFake(t, ok(userJSON))
	c := f.client()
	for name, o := range clientOnly {
		_, err := c.GetMe(t.Context(), o)
		refused("given to a call", err, name)
		if _, err := c.WithOptions(o); err != nil {
			t.Errorf("%s given to WithOptions: %v", name, err)
		}
	}
	for name, o := range callOnly {
		_, err := scribe.NewClient(testBase, o)
		refused("given to NewClient", err, name)
		_, err = c.WithOptions(o)
		refused("given to WithOptions", err, name)
		if _, err := c.Do(t.Context(), http.MethodPost, "/plugins", nil, nil, o); err != nil {
			t.Errorf("%s given to a call: %v", name, err)
		}
	}
	if _, err := c.WithOptions(scribe.WithMaxRetries(-3)); err == nil {
		t.Error("WithOptions(WithMaxRetries(-3)) returned no error")
	}
	if n := len(f.requests()); n != len(callOnly) {
		t.Errorf("sent %d requests, want only the %d calls given call-only options", n, len(callOnly))
	}
}

// TestTokenRefusedRetriedOnce protects the 401 rule: the refused token is
// invalidated and the request retried exactly once with a fresh token.
func TestTokenRefusedRetriedOnce(t *testing.T) {
	t.Parallel()
	ts := &tokens{list: []string{"token.one.x", "token.two.x"}}
	f := newFake(t, problem(401, scribe.CodeInvalidToken, "bad signature"), ok(userJSON))
	u, err := f.client(scribe.WithTokenSource(ts)).GetMe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&wantUser, u); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	var auths []string
	for _, r := range f.requests() {
		auths = append(auths, r.Header.Get("Authorization"))
	}
	if diff := cmp.Diff([]string{"Bearer token.one.x", "Bearer token.two.x"}, auths); diff != "" {
		t.Errorf("tokens sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"token.one.x"}, ts.invalidated); diff != "" {
		t.Errorf("invalidated (-want +got):\n%s", diff)
	}
}

// TestTokenRefusedTwice protects that a second 401 is returned, not retried.
func TestTokenRefusedTwice(t *testing.T) {
	t.Parallel()
	ts := &tokens{list: []string{"token.one.x", "token.two.x", "token.three.x"}}
	f := newFake(t, problem(401, scribe.CodeTokenExpired, "expired"))
	_, err := f.client(scribe.WithTokenSource(ts)).GetMe(context.Background())
	if !errors.Is(err, scribe.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("sent %d requests, want 2", n)
	}
	if diff := cmp.Diff([]string{"token.one.x"}, ts.invalidated); diff != "" {
		t.Errorf("invalidated (-want +got):\n%s", diff)
	}
}

// TestNo401RetryWithoutInvalidator protects that a developer key, or a token
// source that cannot invalidate, is not retried after a 401.
func TestNo401RetryWithoutInvalidator(t *testing.T) {
	t.Parallel()
	for name, opt := range map[string]scribe.Option{
		"developer key":      scribe.WithDeveloperKey(testDeveloperKey),
		"plain token source": scribe.WithTokenSource(plainTokens{"a.b.c"}),
	} {
		f := newFake(t, problem(401, scribe.CodeInvalidToken, "unknown key"), ok(userJSON))
		if _, err := f.client(opt).GetMe(context.Background()); !errors.Is(err, scribe.ErrUnauthorized) {
			t.Errorf("%s: err = %v, want ErrUnauthorized", name, err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("%s: sent %d requests, want 1", name, n)
		}
	}
}

// TestTokenSourceError protects that a failing token source stops the call
// at once (no retry, nothing sent) with its error wrapped.
func TestTokenSourceError(t *testing.T) {
	t.Parallel()
	boom := errors.New("secret store unreachable")
	f := newFake(t, ok(userJSON))
	_, err := f.client(scribe.WithTokenSource(&tokens{err: boom}), scribe.WithMaxRetries(5)).GetMe(context.Background())
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want it to wrap the token source's error", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("sent %d requests, want none", n)
	}
}
