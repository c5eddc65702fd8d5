package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rtFunc is a RoundTripper from a function.
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// attemptCtx is a request context carrying a, as the client's call does.
type attemptCtx struct {
	context.Context
	a *Attempt
}

func (c attemptCtx) Value(key any) any {
	if _, ok := key.(AttemptKey); ok {
		return c.a
	}
	return c.Context.Value(key)
}

func okResponse(req *http.Request) *http.Response {
	rec := httptest.NewRecorder()
	rec.WriteString("{}")
	resp := rec.Result()
	resp.Request = req
	return resp
}

// TestAttemptBound protects the per-attempt timeout of NoRedirects'
// transport: each attempt gets its own deadline, released by Release (not
// by the end of the round trip: the body is read under it); a caller's
// deadline that comes first makes no timer; a request without an Attempt
// is sent as it is.
func TestAttemptBound(t *testing.T) {
	var seen context.Context
	base := rtFunc(func(req *http.Request) (*http.Response, error) {
		seen = req.Context()
		return okResponse(req), nil
	})
	hc := NoRedirects(&http.Client{Transport: base})
	send := func(ctx context.Context) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.test/v1/x", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	send(context.Background())
	if _, ok := seen.Deadline(); ok {
		t.Error("a request without an Attempt got a deadline")
	}

	a := &Attempt{Timeout: time.Hour, Cause: fmt.Errorf("%w after 1h", ErrAttemptTimeout)}
	send(attemptCtx{context.Background(), a})
	if dl, ok := seen.Deadline(); !ok || time.Until(dl) > time.Hour || time.Until(dl) < 59*time.Minute {
		t.Errorf("attempt deadline = %v, %v; want about an hour from now", dl, ok)
	}
	if seen.Err() != nil {
		t.Error("the attempt's context ended with the round trip; the body is read under it")
	}
	first := seen
	send(attemptCtx{context.Background(), a})
	if first.Err() == nil {
		t.Error("the next attempt did not release the previous one's timer")
	}
	a.Release()
	if !errors.Is(seen.Err(), context.Canceled) {
		t.Errorf("after Release the attempt's context err = %v, want Canceled", seen.Err())
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	caller := attemptCtx{ctx, a}
	send(caller)
	if seen != context.Context(caller) {
		t.Error("an attempt timer was made although the caller's deadline comes first")
	}
}

// TestAttemptTimeoutCause protects that an attempt that runs out of time
// fails with the Attempt's Cause (which matches context.DeadlineExceeded),
// not with the transport's own wording.
func TestAttemptTimeoutCause(t *testing.T) {
	hang := rtFunc(func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, errors.New("transport: request canceled")
	})
	hc := NoRedirects(&http.Client{Transport: hang})
	a := &Attempt{Timeout: 10 * time.Millisecond, Cause: fmt.Errorf("%w after 10ms", ErrAttemptTimeout)}
	req, _ := http.NewRequestWithContext(attemptCtx{context.Background(), a}, http.MethodGet, "https://api.example.test/v1/x", nil)
	_, err := hc.Do(req)
	if !errors.Is(err, a.Cause) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the attempt's cause", err)
	}
	if !strings.Contains(err.Error(), "attempt timed out after 10ms") {
		t.Errorf("err = %q, want it to say the attempt timed out", err)
	}
}

// TestNoRedirectsGuard protects the transport's second line against
// redirects: when net/http follows a redirect anyway (a CheckRedirect put
// back on the client NoRedirects returned), the redirected request is
// refused before it is sent, so its target never sees it.
func TestNoRedirectsGuard(t *testing.T) {
	var reached atomic.Bool
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Store(true) }))
	defer evil.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	hc := NoRedirects(&http.Client{})
	hc.CheckRedirect = nil // net/http's default: follow
	resp, err := hc.Get(origin.URL)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrRedirect) {
		t.Errorf("err = %v, want ErrRedirect", err)
	}
	if reached.Load() {
		t.Error("the redirect target was reached")
	}
}
