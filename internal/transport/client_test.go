package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestAttemptTimeoutIsATimeout protects that an attempt timeout is detected
// the ways Go code detects a timeout: as a net.Error whose Timeout is true
// (what retry middleware and metrics check), and as
// context.DeadlineExceeded, also once wrapped.
func TestAttemptTimeoutIsATimeout(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("scribe: GET /users/me: %w", fmt.Errorf("%w after 60s", ErrAttemptTimeout))
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Errorf("errors.As(err, net.Error) with Timeout() true fails for %v", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
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
