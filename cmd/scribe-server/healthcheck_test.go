package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// runHealthcheck runs the healthcheck subcommand against server and
// returns its exit status and output.
func runHealthcheck(t *testing.T, server string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = exitCode(run(t.Context(), []string{"healthcheck", "-server", server}, &out, &errOut), &errOut)
	return code, out.String(), errOut.String()
}

// healthcheck exits 0 while the server serves, with or without -admin and
// whatever its base path, and 1 with the reason once it is stopped.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-base-path", "/v1"}, {"-admin"}} {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- runWith(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard, defaultLimits)
			pw.Close()
		}()
		base := firstLine(t, pr)
		if code, out, stderr := runHealthcheck(t, base); code != 0 || !strings.Contains(out, "answered 200") {
			t.Errorf("%v: healthcheck exit %d, %q %q; want 0", args, code, out, stderr)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runHealthcheck(t, base); code != 1 || !strings.Contains(stderr, "connection refused") {
			t.Errorf("%v: healthcheck of a stopped server: exit %d, %q; want 1 saying the connection was refused", args, code, stderr)
		}
	}
}

// healthcheck exits 1, saying why, for an answer that is not 200 and for
// a server that does not answer within 2 s.
func TestHealthcheckUnhealthy(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	if code, _, stderr := runHealthcheck(t, failing.URL); code != 1 || !strings.Contains(stderr, "503 Service Unavailable, want 200 OK") {
		t.Errorf("a 503: exit %d, %q", code, stderr)
	}
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case <-release:
		case <-time.After(waitLimit):
		}
	}))
	defer hung.Close()
	defer close(release)
	if code, _, stderr := runHealthcheck(t, hung.URL); code != 1 || !strings.Contains(stderr, "no answer within 2s") {
		t.Errorf("a server that does not answer: exit %d, %q", code, stderr)
	}
}
