package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestAttemptTimeoutIsATimeout protects that an attempt timeout is detected
// the ways Go code detects a timeout: as a net.Error whose Timeout is true
// (what retry middleware and metrics check), and as
// context.DeadlineExceeded, also once wrapped.
func TestAttemptTimeoutIsATimeout(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("scribe: GET /users/me: %w", AttemptTimeout(time.Minute))
	if !errors.Is(err, ErrAttemptTimeout) || !strings.HasSuffix(err.Error(), ": attempt timed out after 1m0s") {
		t.Errorf("%v: want an ErrAttemptTimeout saying after how long", err)
	}
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Errorf("errors.As(err, net.Error) with Timeout() true fails for %v", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
	}
}

// TestNoRedirects protects the one guard against redirects: the client
// NoRedirects returns hands a 3xx back instead of following it, whatever the
// CheckRedirect of the client it copies, so the redirect's target never sees
// the request; the client given keeps its own CheckRedirect.
func TestNoRedirects(t *testing.T) {
	var reached atomic.Bool
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Store(true) }))
	defer evil.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	follow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	resp, err := NoRedirects(follow).Get(origin.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || reached.Load() {
		t.Errorf("status %d, target reached %v; want the 307 back and the target untouched", resp.StatusCode, reached.Load())
	}
	if follow.CheckRedirect(nil, nil) != nil {
		t.Error("the client given was modified")
	}
}
