package scribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/scribehq/scribe-go"
)

// TestLogLines protects WithLogger: one debug line per attempt and per retry
// wait, with method, path, attempt, status, request id and duration, and no
// credential, header value or returned secret anywhere.
func TestLogLines(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsb2cifQ.bG9nLXNpZw"
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))

	f := newFake(t, problem(503, scribe.CodeServiceUnavailable, "down"), ok(secretKeyJSON))
	c := f.client(scribe.WithLogger(logger))
	k, err := c.CreatePluginSecretKey(context.Background(), 100, nil, scribe.WithHeader("X-Trace", "trace-value-77"))
	if err != nil {
		t.Fatal(err)
	}
	logger.Debug("the caller logs the key", "key", k) // a returned secret prints redacted too

	g := newFake(t, problem(401, scribe.CodeInvalidToken, "refused "+jwt), ok(userJSON))
	if _, err := g.client(scribe.WithLogger(logger), scribe.WithTokenSource(&tokens{list: []string{jwt}})).GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}

	out := buf.String()
	for _, secret := range []string{testDevKey, jwt, "c2VjcmV0LW1hdGVyaWFsLXRoYXQtbXVzdC1ub3QtbGVhaw", "trace-value-77", "Bearer"} {
		if strings.Contains(out, secret) {
			t.Errorf("log output contains %q:\n%s", secret, out)
		}
	}

	type line struct {
		Msg       string `json:"msg"`
		Method    string `json:"method"`
		Path      string `json:"path"`
		Attempt   int    `json:"attempt"`
		Status    int    `json:"status"`
		RequestID string `json:"request_id"`
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "scribe: attempt" {
			if _, ok := m["duration"]; !ok {
				t.Errorf("attempt line without duration: %s", l)
			}
		}
		var ln line
		_ = json.Unmarshal([]byte(l), &ln)
		got = append(got, ln)
	}
	want := []line{
		{"scribe: attempt", "POST", "/plugins/100/secret_keys", 1, 503, "req_test"},
		{"scribe: retrying", "POST", "/plugins/100/secret_keys", 1, 0, ""},
		{"scribe: attempt", "POST", "/plugins/100/secret_keys", 2, 200, "req_test"},
		{"the caller logs the key", "", "", 0, 0, ""},
		{"scribe: attempt", "GET", "/users/me", 1, 401, "req_test"},
		{"scribe: token refused; retrying once with a fresh token", "GET", "/users/me", 1, 0, ""},
		{"scribe: attempt", "GET", "/users/me", 2, 200, "req_test"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}

// TestDeveloperKeyNeverPrints protects that a client, its options and its
// errors print no developer key through fmt.
func TestDeveloperKeyNeverPrints(t *testing.T) {
	t.Parallel()
	c, err := scribe.NewClient(testBase, scribe.WithDeveloperKey(testDeveloperKey))
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, c); strings.Contains(out, "TESTKEY") {
			t.Errorf("Sprintf(%q, client) = %q leaks the key", verb, out)
		}
	}
}

// uuidTokens is a TokenSource that names its installation, as
// auth.TokenSource does.
type uuidTokens struct{ plainTokens }

func (uuidTokens) InstallationUUID() string { return "0b6cf4b4-39b5-4b0e-8f5c-5c2a4e0d8a11" }

// TestLogThrottledAndInstallation protects two things of WithLogger's lines:
// a Retry-After wait longer than a second is logged at Info as "throttled by
// the service for N s" before the client sleeps, so that a waiting backend
// does not look frozen; and every line of an installation client's call
// names the installation (installation_uuid), never its token.
func TestLogThrottledAndInstallation(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0aHJvdHRsZSJ9.dGhyb3R0bGUtc2ln"
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	f := newFake(t, problem(429, scribe.CodeRateLimited, "slow down", "Retry-After", "2"), ok(userJSON))
	c := f.client(scribe.WithLogger(logger), scribe.WithTokenSource(uuidTokens{plainTokens{jwt}}))
	if _, err := c.GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, jwt) {
		t.Errorf("log output holds the token:\n%s", out)
	}
	var msgs []string
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["installation_uuid"] != "0b6cf4b4-39b5-4b0e-8f5c-5c2a4e0d8a11" {
			t.Errorf("line without the installation's uuid: %s", l)
		}
		msgs = append(msgs, m["msg"].(string))
	}
	want := []string{"scribe: throttled by the service for 2 s", "scribe: retrying"}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("Info lines (-want +got):\n%s", diff)
	}
}
