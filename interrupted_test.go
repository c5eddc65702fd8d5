package scribe_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// cuttingProxy is a hostile hop in front of upstream: it forwards each
// request, and for the requests cut reports true for (numbered from 0) it
// sends the answer's status and headers, with the real Content-Length, then
// half the body, and drops the connection, as a broken proxy or a network
// failure would.
func cuttingProxy(t *testing.T, upstream http.Handler, cut func(n int) bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		rec := httptest.NewRecorder()
		upstream.ServeHTTP(rec, r)
		if !cut(i) {
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		body := rec.Body.Bytes()
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", rec.Code, http.StatusText(rec.Code))
		rec.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_ = rec.Header().Write(buf)
		_, _ = buf.WriteString("\r\n")
		_, _ = buf.Write(body[:len(body)/2])
		_ = buf.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// static answers every request with a 200 and body.
func static(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_cut")
		_, _ = io.WriteString(w, body)
	})
}

func proxiedClient(t *testing.T, srv *httptest.Server, opts ...scribe.Option) *scribe.Client {
	t.Helper()
	base := []scribe.Option{scribe.WithHTTPClient(srv.Client()), scribe.WithDeveloperKey(testDeveloperKey), scribe.WithRetryWait(0, 0)}
	c, err := scribe.NewClient(srv.URL, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCutBodyIsRetried protects that a 200 whose body is cut off mid-way is
// a failed attempt, retried within the call's budget, so that one flaky
// connection does not fail a read, nor a page walk half-way.
func TestCutBodyIsRetried(t *testing.T) {
	t.Parallel()
	srv, n := cuttingProxy(t, static(transcriptJSON), func(i int) bool { return i == 0 })
	var resp scribe.Response
	tr, err := proxiedClient(t, srv).GetTranscript(context.Background(), 42, scribe.WithResponseInto(&resp))
	if err != nil {
		t.Fatalf("GetTranscript after one cut answer: %v", err)
	}
	if tr.ID != 42 || resp.Attempts != 2 || n.Load() != 2 {
		t.Errorf("got transcript %d after %d attempts (%d requests), want 42 after 2", tr.ID, resp.Attempts, n.Load())
	}

	// A walk over three pages whose second answer is cut completes.
	pages := map[string]string{
		"":   page(true, 3, transcriptJSON),
		"42": page(true, 3, `{"id":43`+transcriptJSON[len(`{"id":42`):]),
		"43": page(false, 3, `{"id":44`+transcriptJSON[len(`{"id":42`):]),
	}
	walk, _ := cuttingProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, pages[r.URL.Query().Get("after_id")])
	}), func(i int) bool { return i == 1 })
	var ids []int64
	for item, err := range proxiedClient(t, walk).ListTranscripts(context.Background(), nil).All() {
		if err != nil {
			t.Fatalf("walk: %v", err)
		}
		ids = append(ids, item.ID)
	}
	if fmt.Sprint(ids) != "[42 43 44]" {
		t.Errorf("walked %v, want [42 43 44]", ids)
	}
}

// TestCutBodyAfterEveryAttempt protects the error after the last attempt:
// it matches ErrResponseInterrupted and the read error, names how many
// attempts were made, and, for a POST, carries the Idempotency-Key that
// fetches the answer again.
func TestCutBodyAfterEveryAttempt(t *testing.T) {
	t.Parallel()
	srv, n := cuttingProxy(t, static(secretKeyJSON), func(int) bool { return true })
	_, err := proxiedClient(t, srv).CreatePluginSecretKey(context.Background(), 100, nil)
	var ie *scribe.ResponseInterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, scribe.ErrResponseInterrupted) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v (%T), want a *ResponseInterruptedError matching ErrResponseInterrupted and io.ErrUnexpectedEOF", err, err)
	}
	if want := scribe.DefaultMaxRetries + 1; ie.Attempts != want || int(n.Load()) != want {
		t.Errorf("Attempts = %d, requests = %d, want %d", ie.Attempts, n.Load(), want)
	}
	if ie.IdempotencyKey == "" || ie.StatusCode != 200 || ie.Method != "POST" || ie.RequestID != "req_cut" {
		t.Errorf("error = %+v, want the POST's key, status and request id", ie)
	}
	if msg := err.Error(); !strings.Contains(msg, ie.IdempotencyKey) || strings.Contains(msg, "ask_live_") {
		t.Errorf("message %q: want the key to repeat the call with, and no part of the body", msg)
	}

	// A GET carries no key.
	get, _ := cuttingProxy(t, static(transcriptJSON), func(int) bool { return true })
	_, err = proxiedClient(t, get).GetTranscript(context.Background(), 42)
	if !errors.As(err, &ie) || ie.IdempotencyKey != "" {
		t.Errorf("GET: err = %v, want a *ResponseInterruptedError without a key", err)
	}
}

// TestCutSecretKeyIsNotLost protects a secret key whose only copy was in a
// cut answer: the retry carries the same Idempotency-Key, so the reference
// server answers with the key it created (one key on the service, not
// two); and after a call that gave up, repeating it with the error's key
// returns that same key.
func TestCutSecretKeyIsNotLost(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM"})
	if err != nil {
		t.Fatal(err)
	}
	upstream := forward(t, s.URL())
	cutFirst, _ := cuttingProxy(t, upstream, func(i int) bool { return i == 0 })
	c := proxiedClient(t, cutFirst, scribe.WithDeveloperKey(dev.Key))
	sk, err := c.CreatePluginSecretKey(context.Background(), p.ID, nil)
	if err != nil {
		t.Fatalf("CreatePluginSecretKey after a cut answer: %v", err)
	}
	keys := s.SecretKeys(p.ID)
	if len(keys) != 1 || keys[0].Value.Reveal() != sk.Value.Reveal() {
		t.Fatalf("the service holds %d keys; want exactly the one returned", len(keys))
	}

	cutAll, _ := cuttingProxy(t, upstream, func(int) bool { return true })
	_, err = proxiedClient(t, cutAll, scribe.WithDeveloperKey(dev.Key)).CreatePluginSecretKey(context.Background(), p.ID, nil)
	var ie *scribe.ResponseInterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want a *ResponseInterruptedError", err)
	}
	again, err := c.CreatePluginSecretKey(context.Background(), p.ID, nil, scribe.WithIdempotencyKey(ie.IdempotencyKey))
	if err != nil {
		t.Fatalf("repeating with the error's key: %v", err)
	}
	keys = s.SecretKeys(p.ID)
	if len(keys) != 2 || keys[1].Value.Reveal() != again.Value.Reveal() {
		t.Errorf("the service holds %d keys; want 2, the second the one the repeat returned", len(keys))
	}
}

// TestCancelMidBody protects that a caller who stops waiting mid-body gets
// both the context's error and ErrResponseInterrupted, with the key.
func TestCancelMidBody(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(pluginJSON)))
		_, _ = io.WriteString(w, pluginJSON[:20])
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done() // the client hangs up
	}))
	defer srv.Close()
	hc := &http.Client{Transport: cancelAfterHeaders{srv.Client().Transport, cancel}}
	_, err := proxiedClient(t, srv, scribe.WithHTTPClient(hc)).CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "x"})
	var ie *scribe.ResponseInterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || ie.IdempotencyKey == "" {
		t.Errorf("err = %v, want a *ResponseInterruptedError matching context.Canceled, with the key", err)
	}
}

// cancelAfterHeaders cancels the call's context once the answer's headers
// have arrived, before its body is read.
type cancelAfterHeaders struct {
	base   http.RoundTripper
	cancel context.CancelFunc
}

func (c cancelAfterHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	c.cancel()
	return resp, err
}

// forward is a handler that sends each request on to base and copies the
// answer back.
func forward(t *testing.T, base string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), r.Body)
		if err != nil {
			t.Errorf("forward: %v", err)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			t.Errorf("forward: %v", err)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, bufio.NewReader(resp.Body))
	})
}
