package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
)

// waitLimit bounds every wait of these tests: a liveness bound, never a
// measure of speed.
const waitLimit = 10 * time.Second

// The command behaves like a Go tool. A bad flag or a nonsense value exits 2
// and is reported once; -version and -help exit 0; an error that is not the
// command line's exits 1.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		code       int
		stdoutHas  string
		stderrHas  string // reported exactly once
		stderrNone bool
	}{
		{args: []string{"-nope"}, code: 2, stderrHas: "flag provided but not defined: -nope"},
		{args: []string{"-admin=maybe"}, code: 2, stderrHas: `invalid boolean value "maybe" for -admin`},
		{args: []string{"-webhook-schedule-scale", "-1"}, code: 2, stderrHas: "-webhook-schedule-scale -1: give a positive finite factor"},
		{args: []string{"-webhook-schedule-scale", "NaN"}, code: 2, stderrHas: "positive finite factor"},
		{args: []string{"-webhook-schedule-scale", "+Inf"}, code: 2, stderrHas: "positive finite factor"},
		{args: []string{"-webhook-schedule-scale", "0"}, code: 2, stderrHas: "positive finite factor"},
		{args: []string{"-addr", "nonsense"}, code: 2, stderrHas: "not host:port"},
		{args: []string{"-base-path", "v1"}, code: 2, stderrHas: "must be a path"},
		{args: []string{"extra"}, code: 2, stderrHas: `unexpected argument "extra"`},
		{args: []string{"-version"}, code: 0, stdoutHas: "scribe-server 0.", stderrNone: true},
		{args: []string{"-help"}, code: 0, stderrHas: "Usage: scribe-server"},
		{args: []string{"-addr", "127.0.0.1:0", "-fixtures", "testdata/missing.json"}, code: 1, stderrHas: "no such file"},
		{args: []string{"trigger"}, code: 2, stderrHas: "trigger takes one argument"},
		{args: []string{"trigger", "-wait", "0s", "transcript.created"}, code: 2, stderrHas: "-wait 0s"},
		{args: []string{"trigger", "-plugin", "-3", "transcript.created"}, code: 2, stderrHas: "-plugin -3"},
		{args: []string{"trigger", "-server", "localhost:8080", "transcript.created"}, code: 2, stderrHas: "give the server's URL"},
		{args: []string{"trigger", "-bogus"}, code: 2, stderrHas: "flag provided but not defined: -bogus"},
		{args: []string{"-rate-limit", "10"}, code: 2, stderrHas: "give N/DURATION, such as 10/1s"},
		{args: []string{"-rate-limit", "x/1s"}, code: 2, stderrHas: "give N/DURATION"},
		{args: []string{"-rate-limit", "0/1s"}, code: 2, stderrHas: "N must be at least 1"},
		{args: []string{"-rate-limit", "10/500ms"}, code: 2, stderrHas: "DURATION at least 1s"},
		{args: []string{"healthcheck", "extra"}, code: 2, stderrHas: "healthcheck takes no argument"},
		{args: []string{"healthcheck", "-server", "localhost:8080"}, code: 2, stderrHas: "give the server's URL"},
		{args: []string{"healthcheck", "-help"}, code: 0, stderrHas: "Usage: scribe-server healthcheck"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := exitCode(run(t.Context(), tt.args, &stdout, &stderr), &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if tt.stdoutHas != "" && !strings.Contains(stdout.String(), tt.stdoutHas) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tt.stdoutHas)
			}
			if tt.stderrHas != "" && strings.Count(stderr.String(), tt.stderrHas) != 1 {
				t.Errorf("stderr reports %q %d times, want once:\n%s", tt.stderrHas, strings.Count(stderr.String(), tt.stderrHas), stderr.String())
			}
			if tt.stderrNone && stderr.Len() != 0 {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
		})
	}
}

// startServer runs the command in-process with args and lim until the test
// ends, and returns its base URL.
func startServer(t *testing.T, lim limits, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runWith(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard, lim)
		pw.Close()
	}()
	url := firstLine(t, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return url
}

// The binary's http.Server has timeouts and a header cap. A client that sends
// its headers slowly (slowloris) is cut off after the header timeout instead
// of holding the connection; headers over the cap are refused with 431. The
// defaults are set, and run uses them.
func TestServerLimits(t *testing.T) {
	t.Parallel()
	if defaultLimits.readHeader <= 0 || defaultLimits.read <= 0 || defaultLimits.write <= 0 || defaultLimits.idle <= 0 || defaultLimits.maxHeaderBytes <= 0 {
		t.Fatalf("defaultLimits = %+v: every limit must be set", defaultLimits)
	}
	hs := newHTTPServer(http.NotFoundHandler(), defaultLimits, slog.New(slog.DiscardHandler))
	if hs.ReadHeaderTimeout != defaultLimits.readHeader || hs.ReadTimeout != defaultLimits.read || hs.WriteTimeout != defaultLimits.write ||
		hs.IdleTimeout != defaultLimits.idle || hs.MaxHeaderBytes != defaultLimits.maxHeaderBytes {
		t.Errorf("newHTTPServer does not apply the limits: %+v", hs)
	}

	small := limits{readHeader: 200 * time.Millisecond, read: time.Second, write: time.Second, idle: time.Second, maxHeaderBytes: 4 << 10}
	base := startServer(t, small)
	host := strings.TrimPrefix(base, "http://")

	t.Run("slow headers are cut off", func(t *testing.T) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET /plugins HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
			t.Fatal(err)
		}
		// The client never finishes its headers; the server must close the
		// connection on its own. The deadline only keeps a broken server
		// from hanging the test.
		_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
		got, err := io.ReadAll(conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server still held the connection after %v (read %q)", waitLimit, got)
		}
	})
	t.Run("oversized headers are 431", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, base+"/plugins", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Big", strings.Repeat("a", 16<<10))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d, want 431", resp.StatusCode)
		}
	})
}

// "scribe-server trigger" makes a running server send a signed event to a
// local receiver. The first run adds the receiver's webhook and prints its
// signing secret; a receiver built with webhook.NewHandler and that secret
// then verifies and handles the triggered events, and the command prints each
// attempt and exits 0. A receiver that refuses exits 1 with the receiver's
// answer printed.
func TestTrigger(t *testing.T) {
	t.Parallel()
	var handler atomic.Pointer[http.Handler]
	var handled atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := handler.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.Error(w, "receiver not configured yet", http.StatusServiceUnavailable)
	}))
	t.Cleanup(recv.Close)
	hookURI := recv.URL + "/hook"
	// Started after the receiver, so stopped before it (cleanups run last
	// in, first out): its graceful shutdown still reaches the receiver.
	base := startServer(t, defaultLimits, "-admin", "-webhook-schedule-scale", "0.001")

	runTrigger := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := exitCode(run(t.Context(), append([]string{"trigger", "-server", base, "-uri", hookURI}, args...), &stdout, &stderr), &stderr)
		return code, stdout.String() + stderr.String()
	}

	code, out := runTrigger("installation.created")
	secret := regexp.MustCompile(`signing secret: (whsec_\S+)`).FindStringSubmatch(out)
	if code != 1 || secret == nil || !strings.Contains(out, "receiver not configured yet") ||
		!strings.Contains(out, "a new webhook of plugin 100, with a new signing secret of its own") || !strings.Contains(out, "Replicas behind one URL share one webhook") {
		t.Fatalf("first trigger, receiver without a secret: exit %d; want 1, the new webhook and its new secret, said so, and the receiver's 503 answer:\n%s", code, out)
	}
	s, err := auth.ParseWebhookSecret(secret[1])
	if err != nil {
		t.Fatal(err)
	}
	v, err := webhook.NewVerifier(s)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = mustHandler(t, v, func(_ context.Context, e *webhook.Event) error {
		if e.Type == webhook.EventTranscriptCreated {
			if _, err := e.Transcript(); err != nil {
				return err
			}
			handled.Add(1)
		}
		return nil
	}, webhook.WithLogger(nil))
	handler.Store(&h)

	code, out = runTrigger("transcript.created")
	if code != 0 || !regexp.MustCompile(`triggered transcript.created evt_\S+`).MatchString(out) || strings.Contains(out, "signing secret") ||
		!strings.Contains(out, "delivered: 2 of 2") {
		t.Errorf("second trigger: exit %d; want 0, the event id, both events (installation and transcript) delivered, no new webhook:\n%s", code, out)
	}
	if handled.Load() != 1 {
		t.Errorf("the receiver's function handled %d transcript.created events, want 1", handled.Load())
	}

	code, out = runTrigger("plugin.renamed")
	if code != 1 || !strings.Contains(out, `unknown event type "plugin.renamed"`) {
		t.Errorf("unknown type: exit %d:\n%s", code, out)
	}
	code, out = runTrigger("-plugin", "101", "transcript.created")
	if code != 1 || !strings.Contains(out, `transcript permission "none"`) {
		t.Errorf("a plugin without transcript permission: exit %d:\n%s", code, out)
	}
}

// TestPrintAttemptSanitizes: trigger and resend print what a receiver
// controls (its status line, in the attempt's error) without credentials
// and without terminal escapes, whichever server sent the record (issue 49).
func TestPrintAttemptSanitizes(t *testing.T) {
	var b strings.Builder
	printAttempt(&b, triggerAttempt{EventType: "installation.created", EventID: "evt_1\x1b[2J", WebhookID: 1, URI: "http://x/\x07",
		Attempt: 1, StatusCode: 503, Error: "answered 503 Nope ask_live_abc dk_live_def whsec_ab%2Bcd eyJa.eyJb.c \x1b]0;owned\x07\x1b[2J"})
	out := b.String()
	for _, bad := range []string{"\x1b", "\x07", "abc", "def", "%2Bcd", "eyJa"} {
		if strings.Contains(out, bad) {
			t.Errorf("printAttempt printed %q: %q", bad, out)
		}
	}
	if !strings.Contains(out, `answered 503 Nope ask_live_[REDACTED] dk_live_[REDACTED] whsec_[REDACTED] [REDACTED] \x1b]0;owned\a\x1b[2J`) {
		t.Errorf("printAttempt = %q, want the status line with the secrets redacted and the escapes visible", out)
	}
}

// TestByteSize: -body-budget reads bytes, KiB, MiB and GiB.
func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "64KiB": 64 << 10, "256MiB": 256 << 20, "2GiB": 2 << 30} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %v, %d; want %d", in, err, b, want)
		}
	}
}
