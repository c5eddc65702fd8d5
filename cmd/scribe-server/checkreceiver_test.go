package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/internal/receivercheck"
	"github.com/scribehq/scribe-go/webhook"
)

// The receivers of these tests: a correct one, and four that each make one
// of the mistakes check-receiver exists to catch.

// correctReceiver is webhook.NewHandler, as examples/webhook-receiver uses it.
func correctReceiver(t *testing.T, secret auth.WebhookSecret) http.Handler {
	return mustHandler(t, newVerifier(t, secret), acknowledge, webhook.WithLogger(nil))
}

// noSignatureCheck requires the three headers and a fresh timestamp, and
// dedupes, but never checks the signature: it takes any event at its word.
func noSignatureCheck(*testing.T, auth.WebhookSecret) http.Handler {
	var mu sync.Mutex
	processed := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, sig := r.Header.Get(webhook.HeaderID), r.Header.Get(webhook.HeaderSignature)
		unix, err := strconv.ParseInt(r.Header.Get(webhook.HeaderTimestamp), 10, 64)
		if id == "" || sig == "" || err != nil {
			http.Error(w, "missing webhook headers", http.StatusBadRequest)
			return
		}
		if age := time.Since(time.Unix(unix, 0)); age > webhook.DefaultTolerance || age < -webhook.DefaultTolerance {
			http.Error(w, "stale timestamp", http.StatusUnauthorized)
			return
		}
		if _, err := webhook.ParseEvent(body); err != nil {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		processed[id] = true
		io.WriteString(w, "ok\n")
	})
}

// noTimestampCheck verifies signatures with a tolerance of a century: in
// effect it never checks the timestamp, so a captured delivery replays.
func noTimestampCheck(t *testing.T, secret auth.WebhookSecret) http.Handler {
	return mustHandler(t, newVerifier(t, secret, webhook.WithTolerance(100*365*24*time.Hour)), acknowledge, webhook.WithLogger(nil))
}

// failsRedelivery dedupes in its own function, by failing on an id it has
// seen, as an INSERT into a table keyed by event id does: every redelivery
// gets a 500, which says why.
func failsRedelivery(t *testing.T, secret auth.WebhookSecret) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return mustHandler(t, newVerifier(t, secret), func(_ context.Context, e *webhook.Event) error {
		mu.Lock()
		defer mu.Unlock()
		if seen[e.ID] {
			return errors.New(`duplicate key value violates unique constraint "events_pkey"`)
		}
		seen[e.ID] = true
		return nil
	}, webhook.WithoutDedupe(), webhook.WithLogger(nil), webhook.WithErrorDetails())
}

// slowDelay is how long tooSlow works on an event: longer than the
// -timeout its test gives (slowTimeout), far shorter than the check's
// grace, so only the rule about speed can notice.
const (
	slowDelay   = 300 * time.Millisecond
	slowTimeout = 100 * time.Millisecond
)

// tooSlow does its work before it answers, and the work takes slowDelay.
func tooSlow(t *testing.T, secret auth.WebhookSecret) http.Handler {
	return mustHandler(t, newVerifier(t, secret), func(ctx context.Context, _ *webhook.Event) error {
		select {
		case <-time.After(slowDelay):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, webhook.WithLogger(nil))
}

func acknowledge(context.Context, *webhook.Event) error { return nil }

func newVerifier(t *testing.T, secret auth.WebhookSecret, opts ...webhook.VerifierOption) *webhook.Verifier {
	t.Helper()
	v, err := webhook.NewVerifier(secret, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkRules are the rules check-receiver reports, in order.
var checkRules = []string{"valid", "redelivery", "wrong-secret", "tampered-body", "missing-headers",
	"stale-timestamp", "rotation", "unknown-type", "concurrent"}

// runCheck runs check-receiver with args and the secret in the environment,
// and returns its exit status and output.
func runCheck(t *testing.T, secret string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(name string) string {
		if name == "SCRIBE_WEBHOOK_SECRET" {
			return secret
		}
		return ""
	}
	code = exitCode(checkReceiver(t.Context(), args, &out, &errOut, getenv), &errOut)
	return code, out.String(), errOut.String()
}

// check-receiver passes a correct receiver and fails each broken one on
// exactly the rules its mistake breaks, with a FAIL line saying what came
// back; it prints a line per rule, then the summary, exits 0 or 1
// accordingly, and never prints the secret.
func TestCheckReceiverCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		receiver func(*testing.T, auth.WebhookSecret) http.Handler
		timeout  time.Duration
		fail     map[string]string // rule -> what its FAIL line must say
	}{
		{name: "correct", receiver: correctReceiver},
		{name: "no signature check", receiver: noSignatureCheck, fail: map[string]string{
			"wrong-secret":  "signed with another secret; got 200 OK",
			"tampered-body": "changed by one byte",
		}},
		{name: "no timestamp check", receiver: noTimestampCheck, fail: map[string]string{
			"stale-timestamp": "6 minutes old; got 200 OK",
		}},
		{name: "500 on a redelivery", receiver: failsRedelivery, fail: map[string]string{
			"redelivery": `again, with a new timestamp and signature; got 500 Internal Server Error "the event handler failed; retry later: duplicate key`,
			"concurrent": "got 500 Internal Server Error",
		}},
		{name: "too slow", receiver: tooSlow, timeout: slowTimeout, fail: map[string]string{
			"valid": fmt.Sprintf("beyond the %v timeout", slowTimeout),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			secret, err := keygen.WebhookSecret()
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(tt.receiver(t, secret))
			defer srv.Close()
			args := []string{srv.URL + "/hook"}
			if tt.timeout != 0 {
				args = append([]string{"-timeout", tt.timeout.String()}, args...)
			}
			code, stdout, stderr := runCheck(t, secret.Reveal(), args...)

			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(lines) != len(checkRules)+2 {
				t.Fatalf("%d lines, want a note, one per rule and the summary:\n%s", len(lines), stdout)
			}
			if note := lines[0]; !strings.HasPrefix(note, "note: ") || !strings.Contains(note, "calls the service back gets 401") || !strings.Contains(note, "-server") {
				t.Errorf("first line %q, want a note that callbacks need -server", note)
			}
			lines = lines[1:]
			unchecked := 0
			for i, rule := range checkRules {
				want, fails := tt.fail[rule]
				blind := !fails && (rule == "redelivery" || rule == "concurrent") // processing cannot be seen without -server
				if blind {
					unchecked++
				}
				switch {
				case blind && (!strings.HasPrefix(lines[i], "NOT CHECKED "+rule+": ") || !strings.Contains(lines[i], "processing is not checked: without -server")):
					t.Errorf("line %d = %q, want NOT CHECKED %s, saying processing cannot be seen without -server", i+1, lines[i], rule)
				case !fails && !blind && !strings.HasPrefix(lines[i], "PASS "+rule+": "):
					t.Errorf("line %d = %q, want PASS %s", i+1, lines[i], rule)
				case fails && (!strings.HasPrefix(lines[i], "FAIL "+rule+": ") || !strings.Contains(lines[i], want)):
					t.Errorf("line %d = %q, want FAIL %s saying %q", i+1, lines[i], rule, want)
				}
			}
			want := receivercheck.Summary{Passed: len(checkRules) - len(tt.fail) - unchecked, Failed: len(tt.fail), NotChecked: unchecked}.String()
			if lines[len(lines)-1] != want {
				t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
			}
			wantCode := 0
			if len(tt.fail) > 0 {
				wantCode = 1
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", code, wantCode, stderr)
			}
			if (code == 1) != strings.Contains(stderr, "the receiver broke") {
				t.Errorf("stderr = %q", stderr)
			}
			for _, leak := range []string{secret.Reveal(), strings.TrimPrefix(secret.Reveal(), auth.WebhookSecretPrefix)} {
				if strings.Contains(stdout+stderr, leak) {
					t.Errorf("the output holds the secret:\n%s\n%s", stdout, stderr)
				}
			}
		})
	}
}

// A usage error exits 2 with one line saying what to fix, checks nothing,
// and never repeats the secret, valid or not.
func TestCheckReceiverUsage(t *testing.T) {
	t.Parallel()
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	valid := secret.Reveal()
	tests := []struct {
		name, secret string
		args         []string
		stderrHas    string
	}{
		{"no URL", valid, nil, "takes one argument, the receiver's URL, and got 0"},
		{"two URLs", valid, []string{"http://127.0.0.1:9/a", "http://127.0.0.1:9/b"}, "and got 2"},
		{"relative URL", valid, []string{"127.0.0.1:9000/hook"}, "not an absolute http:// or https:// URL"},
		{"bad flag", valid, []string{"-secret", valid, "http://127.0.0.1:9/hook"}, "flag provided but not defined: -secret"},
		{"bad timeout", valid, []string{"-timeout", "soon", "http://127.0.0.1:9/hook"}, `invalid value "soon" for flag -timeout`},
		{"zero timeout", valid, []string{"-timeout", "0s", "http://127.0.0.1:9/hook"}, "-timeout 0s: give a positive duration"},
		{"no secret", "", []string{"http://127.0.0.1:9/hook"}, "set SCRIBE_WEBHOOK_SECRET to the webhook's signing secret"},
		{"not a webhook secret", "ask_live_0123456789abcdef", []string{"http://127.0.0.1:9/hook"}, "SCRIBE_WEBHOOK_SECRET: "},
		{"secret with a newline", valid + "\n", []string{"http://127.0.0.1:9/hook"}, "SCRIBE_WEBHOOK_SECRET: "},
		{"secret without its key", "whsec_", []string{"http://127.0.0.1:9/hook"}, "SCRIBE_WEBHOOK_SECRET: "},
		{"plugin without server", valid, []string{"-plugin", "7", "http://127.0.0.1:9/hook"}, "-plugin names a plugin on the server of -server; give -server too"},
		{"bad plugin", valid, []string{"-server", "http://127.0.0.1:9", "-plugin", "0", "http://127.0.0.1:9/hook"}, "-plugin 0: give a plugin id"},
		{"bad server", valid, []string{"-server", "127.0.0.1:9", "http://127.0.0.1:9/hook"}, `-server "127.0.0.1:9": give the server's URL`},
		{"unknown event type", valid, []string{"-event", "transcript.created", "-event", "transcript.deleted", "http://127.0.0.1:9/hook"},
			`the event type "transcript.deleted" is not one the service sends; give one of installation.created, transcript.created, transcript.updated, installation.deleted`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCheck(t, tt.secret, tt.args...)
			if code != 2 || strings.Count(stderr, tt.stderrHas) != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and %q once", code, stderr, tt.stderrHas)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing checked", stdout)
			}
			if strings.Contains(stderr, strings.TrimPrefix(valid, auth.WebhookSecretPrefix)) || (len(tt.secret) > len("whsec_") && strings.Contains(stderr, strings.TrimSpace(tt.secret))) {
				t.Errorf("stderr repeats the secret: %q", stderr)
			}
		})
	}
}

// help, -help and -h print the usage, which names check-receiver, and exit
// 0; "help" prints it on standard output, as scribe-jwt's help does.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"help", "-help", "-h"} {
		var stdout, stderr bytes.Buffer
		code := exitCode(run(t.Context(), []string{arg}, &stdout, &stderr), &stderr)
		out := stdout.String() + stderr.String()
		if code != 0 || !strings.HasPrefix(out, "Usage: scribe-server") || !strings.Contains(out, "scribe-server check-receiver [-timeout 15s] [-server URL [-plugin ID]] [-event TYPE]... [-require-checked] URL") {
			t.Errorf("%s: exit %d, output:\n%s", arg, code, out)
		}
		if arg == "help" && stderr.Len() != 0 {
			t.Errorf("help: stderr = %q, want the usage on stdout", stderr.String())
		}
	}
	_, stdout, stderr := runCheck(t, "", "-help")
	if !strings.HasPrefix(stderr, "Usage: SCRIBE_WEBHOOK_SECRET=whsec_... scribe-server check-receiver") || !strings.Contains(stderr, "-timeout") || stdout != "" {
		t.Errorf("check-receiver -help printed %q, %q", stdout, stderr)
	}
}

// The command dispatches check-receiver, reading the secret from the
// process's environment. (No t.Parallel: it sets the environment.)
func TestRunCheckReceiver(t *testing.T) {
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SCRIBE_WEBHOOK_SECRET", secret.Reveal())
	srv := httptest.NewServer(correctReceiver(t, secret))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := exitCode(run(t.Context(), []string{"check-receiver", "-timeout", "2s", srv.URL}, &stdout, &stderr), &stderr)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if code != 0 || lines[len(lines)-1] != "7 passed, 0 failed, 2 not checked" || !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "within 2s") }) {
		t.Errorf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// -require-checked makes a rule whose processing is not checked a FAIL, so
// that a gate on the exit status never passes a receiver it could not see
// process events: without -server, even a correct receiver exits 1.
func TestCheckReceiverRequireChecked(t *testing.T) {
	t.Parallel()
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(correctReceiver(t, secret))
	defer srv.Close()
	code, stdout, stderr := runCheck(t, secret.Reveal(), "-require-checked", srv.URL)
	for _, want := range []string{
		"\nFAIL redelivery: ", "\nFAIL concurrent: ", "processing is not checked, and the check requires it (-require-checked): without -server",
		"\n7 passed, 2 failed\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	if code != 1 || !strings.Contains(stderr, "the receiver broke 2 of 9 rules") {
		t.Errorf("exit %d, stderr %q; want 1", code, stderr)
	}
}

// mustHandler is webhook.NewHandler, failing the test on its error.
func mustHandler(t testing.TB, v *webhook.Verifier, fn func(context.Context, *webhook.Event) error, opts ...webhook.HandlerOption) http.Handler {
	t.Helper()
	h, err := webhook.NewHandler(v, fn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
