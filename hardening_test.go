package scribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/scribehq/scribe-go"
)

// Hostile-server tests (and those of response metadata and logging): each
// starts a real httptest server that misbehaves the way a compromised proxy
// or a buggy service would.

// TestRedirectCarriesNoCredential: a 3xx to another origin is not followed, so
// the target never sees the developer key or an installation token, with the
// SDK's own HTTP client and with a user's http.Client given through
// WithHTTPClient (whose default policy follows redirects). The answer is an
// *Error naming the Location's host.
func TestRedirectCarriesNoCredential(t *testing.T) {
	t.Parallel()
	var stolen atomic.Int64
	var stolenAuth atomic.Value
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		stolenAuth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(userJSON))
	}))
	defer evil.Close()
	evilURL, _ := url.Parse(evil.URL)
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Request-Id", "req_redirect")
			http.Redirect(w, r, evil.URL+r.URL.Path, status)
		}))
		defer origin.Close()
		for name, opts := range map[string][]scribe.Option{
			"default client, developer key": {scribe.WithDeveloperKey(testDeveloperKey)},
			"user client, developer key":    {scribe.WithDeveloperKey(testDeveloperKey), scribe.WithHTTPClient(&http.Client{})},
			"user client, token source":     {scribe.WithTokenSource(plainTokens{"eyJh.eyJz.sig"}), scribe.WithHTTPClient(&http.Client{})},
		} {
			c, err := scribe.NewClient(origin.URL+"/v1", opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.GetMe(context.Background())
			var e *scribe.Error
			if !errors.As(err, &e) || !errors.Is(err, scribe.ErrRedirect) {
				t.Fatalf("%d, %s: err = %v, want an *Error matching ErrRedirect", status, name, err)
			}
			if e.StatusCode != status || e.RedirectHost != evilURL.Host {
				t.Errorf("%d, %s: StatusCode %d, RedirectHost %q; want %d, %q", status, name, e.StatusCode, e.RedirectHost, status, evilURL.Host)
			}
			if !strings.Contains(err.Error(), evilURL.Host) {
				t.Errorf("%d, %s: message %q does not name the redirect's host", status, name, err)
			}
			// A POST must not follow either (307/308 would replay the body).
			if _, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "x"}); !errors.Is(err, scribe.ErrRedirect) {
				t.Errorf("%d, %s: POST err = %v, want ErrRedirect", status, name, err)
			}
		}
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the redirect target received %d requests (last Authorization %q); want none", n, stolenAuth.Load())
	}
}

// TestRedirectGuardInTransport: the redirect guard holds against a
// caller's CheckRedirect that follows redirects: the client replaces it,
// so the redirect target is never reached.
func TestRedirectGuardInTransport(t *testing.T) {
	t.Parallel()
	var reached atomic.Bool
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Store(true) }))
	defer evil.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	follow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	c, err := scribe.NewClient(origin.URL, scribe.WithDeveloperKey(testDeveloperKey), scribe.WithHTTPClient(follow))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetMe(context.Background()); err == nil {
		t.Fatal("err = nil, want the redirect refused")
	}
	if reached.Load() {
		t.Error("the redirect target was reached")
	}
}

// listServer answers every list request with the page that pages returns for
// its after_id, and counts the requests.
func listServer(t *testing.T, pages func(afterID string) string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 20 {
			// Make a looping client end, so that the test fails rather than hangs.
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(page(false, 0)))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_page")
		_, _ = w.Write([]byte(pages(r.URL.Query().Get("after_id"))))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestPaginationCursorNotAdvancing: a server that says has_more with a page
// that does not advance the cursor (the same page again, an earlier one, one
// overlapping the cursor, or ids out of order) ends the walk with
// ErrPaginationStalled after at most one repeat, and no item is yielded twice.
func TestPaginationCursorNotAdvancing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		pages func(afterID string) string
		want  []int64
	}{
		{"same page forever", func(string) string { return page(true, 9, pluginItem(1), pluginItem(2)) }, []int64{1, 2}},
		{"an earlier page", func(after string) string {
			if after == "" {
				return page(true, 9, pluginItem(5), pluginItem(6))
			}
			return page(true, 9, pluginItem(3), pluginItem(4))
		}, []int64{5, 6}},
		{"a page overlapping the cursor", func(after string) string {
			if after == "" {
				return page(true, 9, pluginItem(5), pluginItem(6))
			}
			return page(true, 9, pluginItem(6), pluginItem(7))
		}, []int64{5, 6}},
		{"ids out of order", func(string) string { return page(true, 9, pluginItem(2), pluginItem(1)) }, nil},
		{"empty pages forever", func(after string) string {
			if after == "" {
				return page(true, 9, pluginItem(1))
			}
			return page(true, 9)
		}, []int64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, n := listServer(t, tt.pages)
			c, err := scribe.NewClient(srv.URL, scribe.WithDeveloperKey(testDeveloperKey))
			if err != nil {
				t.Fatal(err)
			}
			ids, errs := walk(c.ListPlugins(context.Background(), nil))
			if len(errs) != 1 || !errors.Is(errs[0], scribe.ErrPaginationStalled) {
				t.Fatalf("errs = %v, want one ErrPaginationStalled", errs)
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if got := n.Load(); got > 3 {
				t.Errorf("requests = %d, want at most 3 (first page, the stalled one, one repeat)", got)
			}
		})
	}
}

// TestEndlessBody: a 200 whose body never ends is read only up to the limit
// (WithMaxResponseBytes, or the 32 MiB default), then the call fails with a
// *ResponseTooLargeError and the connection is closed (the server's writes
// fail), instead of the client reading forever.
func TestEndlessBody(t *testing.T) {
	t.Parallel()
	handlerDone := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { handlerDone <- struct{}{} }()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_endless")
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		_, _ = w.Write([]byte(`{"id":1,"text":"`))
		for {
			if _, err := w.Write(chunk); err != nil {
				return // the client hung up
			}
		}
	}))
	defer srv.Close()
	for _, tt := range []struct {
		name  string
		opts  []scribe.Option
		limit int64
	}{
		{"WithMaxResponseBytes", []scribe.Option{scribe.WithMaxResponseBytes(1 << 20)}, 1 << 20},
		{"default", nil, scribe.DefaultMaxResponseBytes},
	} {
		c, err := scribe.NewClient(srv.URL, append([]scribe.Option{scribe.WithDeveloperKey(testDeveloperKey)}, tt.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err = c.GetTranscript(ctx, 1)
		cancel()
		var tl *scribe.ResponseTooLargeError
		if !errors.As(err, &tl) || !errors.Is(err, scribe.ErrResponseTooLarge) {
			t.Fatalf("%s: err = %v, want *ResponseTooLargeError", tt.name, err)
		}
		if tl.Limit != tt.limit || tl.StatusCode != 200 || tl.RequestID != "req_endless" || tl.Path != "/transcripts/1" {
			t.Errorf("%s: error = %+v", tt.name, tl)
		}
		select {
		case <-handlerDone:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the server still writes 30 s later: the connection was not closed", tt.name)
		}
	}
	if scribe.DefaultMaxResponseBytes != 32<<20 {
		t.Errorf("DefaultMaxResponseBytes = %d, want 32 MiB", scribe.DefaultMaxResponseBytes)
	}
}

// TestBodyJustUnderLimit protects that the bound is exact: a body of exactly
// the limit decodes, and the Content-Length of a longer one is refused before
// any read.
func TestBodyJustUnderLimit(t *testing.T) {
	t.Parallel()
	body := []byte(userJSON)
	f := newFake(t, ok(userJSON))
	if _, err := f.client(scribe.WithMaxResponseBytes(int64(len(body)))).GetMe(context.Background()); err != nil {
		t.Errorf("a body of exactly the limit: %v", err)
	}
	if _, err := f.client(scribe.WithMaxResponseBytes(int64(len(body) - 1))).GetMe(context.Background()); !errors.Is(err, scribe.ErrResponseTooLarge) {
		t.Errorf("a body one byte over the limit: err = %v, want ErrResponseTooLarge", err)
	}
	if _, err := scribe.NewClient(testBase, scribe.WithMaxResponseBytes(0)); err == nil {
		t.Error("WithMaxResponseBytes(0) accepted")
	}
}

// TestIdempotencyKeyInUseRetried: a 409 idempotency_key_in_use is retried
// after backoff with the same key and body, like a 429; when it persists, the
// returned *Error carries the key so that the caller can retry by hand later;
// idempotency_key_reused is final.
func TestIdempotencyKeyInUseRetried(t *testing.T) {
	t.Parallel()
	f := newFake(t, problem(409, scribe.CodeIdempotencyKeyInUse, "still running"), ok(secretKeyJSON))
	if _, err := f.client().CreatePluginSecretKey(context.Background(), 100, nil); err != nil {
		t.Fatalf("409 in use then 200: %v", err)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("attempts = %d, want 2", len(reqs))
	}
	key := reqs[0].Header.Get("Idempotency-Key")
	if key == "" || reqs[1].Header.Get("Idempotency-Key") != key || reqs[0].Body != reqs[1].Body {
		t.Errorf("keys %q then %q, bodies %q then %q: want the same key and body", key, reqs[1].Header.Get("Idempotency-Key"), reqs[0].Body, reqs[1].Body)
	}

	g := newFake(t, problem(409, scribe.CodeIdempotencyKeyInUse, "still running"))
	_, err := g.client().CreatePluginSecretKey(context.Background(), 100, nil, scribe.WithIdempotencyKey("rotate-2026-11"))
	var e *scribe.Error
	if !errors.As(err, &e) || e.Code != scribe.CodeIdempotencyKeyInUse {
		t.Fatalf("err = %v, want the 409 *Error", err)
	}
	if e.IdempotencyKey != "rotate-2026-11" {
		t.Errorf("IdempotencyKey = %q, want the key the request carried", e.IdempotencyKey)
	}
	if n := len(g.requests()); n != 1+scribe.DefaultMaxRetries {
		t.Errorf("attempts = %d, want %d", n, 1+scribe.DefaultMaxRetries)
	}

	h := newFake(t, problem(409, scribe.CodeIdempotencyKeyReused, "other body"))
	_, err = h.client().CreatePluginSecretKey(context.Background(), 100, nil)
	if !errors.As(err, &e) || e.IdempotencyKey == "" || len(h.requests()) != 1 {
		t.Errorf("reused: err = %v after %d attempts; want one attempt and the key on the *Error", err, len(h.requests()))
	}
}

// TestConnectionReuse: with the SDK's own transport, 2000 GETs from 50
// goroutines reuse connections (about one per goroutine) instead of opening
// hundreds; a transport given with WithHTTPClient keeps its own policy.
func TestConnectionReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("2000 requests")
	}
	t.Parallel()
	count := func(t *testing.T, requests, workers int, opts ...scribe.Option) int64 {
		var conns atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(userJSON))
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Start()
		defer srv.Close()
		c, err := scribe.NewClient(srv.URL, append([]scribe.Option{scribe.WithDeveloperKey(testDeveloperKey)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		jobs := make(chan struct{})
		for range workers {
			wg.Go(func() {
				for range jobs {
					if _, err := c.GetMe(context.Background()); err != nil {
						t.Error(err)
					}
				}
			})
		}
		for range requests {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
		return conns.Load()
	}
	// About one connection per goroutine; net/http may dial a few more when a
	// request finds no idle connection for an instant (it dials and waits for
	// either), so the bound leaves room for that on a loaded machine. A pool of
	// 2 idle connections per host opened ~1500 here.
	if n := count(t, 2000, 50); n > 100 {
		t.Errorf("default transport: 2000 GETs at 50 goroutines opened %d connections, want about 50", n)
	}
	noKeepAlive := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if n := count(t, 100, 10, scribe.WithHTTPClient(noKeepAlive)); n != 100 {
		t.Errorf("WithHTTPClient without keep-alive: %d connections for 100 GETs, want 100 (the user's transport wins)", n)
	}
}

// TestErrorFieldsScrubbed: what the server says in Code, Type, Title, Detail
// and Request-Id reaches Error() with the client's own credential and
// credential-shaped text redacted, control characters (ANSI escapes, CR, LF,
// bidi overrides) escaped, and each field bounded.
func TestErrorFieldsScrubbed(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJ1Ijoic2NydWIifQ.c2NydWItc2ln"
	hostile := "\x1b[2J\x1b[31mFAKE PROMPT\r\nlogin: \u202eevil " + testDevKey + " " + jwt + " ask_live_leakleakleakleak"
	long := strings.Repeat("é", 3000)
	doc, _ := json.Marshal(map[string]any{"type": "about:blank\x1b]8;;http://evil\x07" + long, "title": "Unauthorized\r\n" + long,
		"status": 401, "detail": hostile + long, "code": "invalid_token\x1b[0m" + long, "request_id": "x"})
	body := string(doc)
	for name, cred := range map[string]scribe.Option{
		"developer key": scribe.WithDeveloperKey(testDeveloperKey),
		"token source":  scribe.WithTokenSource(plainTokens{jwt}),
	} {
		f := newFake(t, respond(401, "application/problem+json", body, "Request-Id", "req_\x1b[1m"+testDevKey+strings.Repeat("r", 500)))
		_, err := f.client(cred).GetMe(context.Background())
		var e *scribe.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: err = %v, want *Error", name, err)
		}
		msg := err.Error()
		for _, bad := range []string{"\x1b", "\r", "\n", "\x07", "\u202e", testDevKey, jwt, "leakleakleak"} {
			if strings.Contains(msg, bad) {
				t.Errorf("%s: Error() contains %q:\n%q", name, bad, msg)
			}
		}
		for _, want := range []string{`\x1b[31mFAKE PROMPT\r\nlogin: \u202eevil`, "[REDACTED]"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: Error() lacks %q (escaped, not silently dropped):\n%.300q", name, want, msg)
			}
		}
		for field, v := range map[string]string{"Code": e.Code, "Type": e.Type, "Title": e.Title, "Detail": e.Detail, "RequestID": e.RequestID} {
			if len(v) > 2048 {
				t.Errorf("%s: %s is %d bytes long, want it bounded", name, field, len(v))
			}
			if strings.ContainsAny(v, "\x1b\r\n\x07") {
				t.Errorf("%s: %s = %.80q keeps control characters", name, field, v)
			}
		}
	}
}

// TestRetryAfterDateAndDeadline: an HTTP-date Retry-After is capped like the
// seconds form, and the client never sleeps past the context's deadline: when
// the wait would outlast it, the call returns the last failure at once.
func TestRetryAfterDateAndDeadline(t *testing.T) {
	t.Parallel()
	soon := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down", "Retry-After", soon))
	// A client that slept would reach the deadline and say so: the error
	// would match context.DeadlineExceeded. No wall-clock bound is needed.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := f.client().GetMe(ctx)
	var e *scribe.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the 503 *Error at once (not a deadline error after sleeping)", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("attempts = %d, want 1", n)
	}

	far := time.Now().Add(400 * 24 * time.Hour).UTC().Format(http.TimeFormat)
	g := newFake(t, problem(429, scribe.CodeRateLimited, "slow", "Retry-After", far))
	_, err = g.client().GetMe(context.Background())
	if !errors.As(err, &e) || e.RetryAfter != 24*time.Hour {
		t.Errorf("far HTTP date: err = %v, RetryAfter %s; want capped at 24h like the seconds form", err, e.RetryAfter)
	}
	if n := len(g.requests()); n != 1 {
		t.Errorf("far HTTP date: attempts = %d, want 1 (beyond the 60 s cap, not retried)", n)
	}

	// A jittered wait that would outlast the deadline ends the call too.
	h := newFake(t, connReset)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	_, err = h.client(scribe.WithRetryWait(time.Hour, time.Hour)).GetMe(ctx2)
	if err == nil || !strings.Contains(err.Error(), "connection reset") || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the connection error at once (not a deadline error after sleeping)", err)
	}
}

// TestRetryStormVisibleAtInfo: with a logger at Info (slog.Default's level),
// each retry shows as an Info line and the give-up as a Warn line, without
// Debug; no secret reaches the log.
func TestRetryStormVisibleAtInfo(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJ1IjoibG9nIn0.bG9nLXNpZw"
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil)) // Info and above
	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down, token "+jwt+" and "+testDevKey))
	_, err := f.client(scribe.WithLogger(logger)).GetMe(context.Background())
	if err == nil {
		t.Fatal("err = nil")
	}
	out := buf.String()
	if got := strings.Count(out, "level=INFO msg=\"scribe: retrying\""); got != 2 {
		t.Errorf("Info retry lines = %d, want 2:\n%s", got, out)
	}
	if got := strings.Count(out, "level=WARN msg=\"scribe: giving up\""); got != 1 {
		t.Errorf("Warn give-up lines = %d, want 1:\n%s", got, out)
	}
	if strings.Contains(out, "level=DEBUG") {
		t.Errorf("Debug lines at Info level:\n%s", out)
	}
	for _, secret := range []string{jwt, testDevKey, "Bearer"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
}

// TestWithResponseInto: a successful call's status, headers, request id and
// RateLimit figures are readable through WithResponseInto, and each page of a
// list carries its own Response.
func TestWithResponseInto(t *testing.T) {
	t.Parallel()
	rl := []string{"RateLimit-Limit", "100", "RateLimit-Remaining", "97", "RateLimit-Reset", "42"}
	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down"), respond(200, "application/json", userJSON, rl...))
	var r scribe.Response
	if _, err := f.client().GetMe(context.Background(), scribe.WithResponseInto(&r)); err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != 200 || r.RequestID != "req_test" || r.Attempts != 2 || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Response = %+v", r)
	}
	got, ok := r.RateLimit()
	if want := (scribe.RateLimit{Limit: 100, Remaining: 97, Reset: 42 * time.Second}); !ok || got != want {
		t.Errorf("RateLimit() = %+v, %v; want %+v", got, ok, want)
	}

	g := newFake(t, respond(200, "application/json", page(true, 3, pluginItem(1)), "Request-Id", "req_p1"),
		respond(200, "application/json", page(false, 3, pluginItem(2)), "Request-Id", "req_p2"))
	var last scribe.Response
	var ids []string
	for p, err := range g.client().ListPlugins(context.Background(), nil, scribe.WithResponseInto(&last)).Pages() {
		if err != nil {
			t.Fatal(err)
		}
		if p.Response == nil || p.Response.StatusCode != 200 {
			t.Fatalf("page Response = %+v", p.Response)
		}
		ids = append(ids, p.Response.RequestID)
	}
	if diff := cmp.Diff([]string{"req_p1", "req_p2"}, ids); diff != "" {
		t.Errorf("page request ids (-want +got):\n%s", diff)
	}
	if last.RequestID != "req_p2" {
		t.Errorf("WithResponseInto on a list holds %q, want the last page's", last.RequestID)
	}
	if _, ok := (&scribe.Response{Header: http.Header{}}).RateLimit(); ok {
		t.Error("RateLimit() reports figures for an answer without RateLimit headers")
	}
	if _, err := scribe.NewClient(testBase, scribe.WithResponseInto(&r)); err == nil {
		t.Error("WithResponseInto accepted by NewClient; it applies to one call")
	}
}
