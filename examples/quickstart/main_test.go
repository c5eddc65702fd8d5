package main

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apitest"
)

// recorder keeps every bearer token the program sent and every secret the
// service answered with, so the test can check that none reaches the output.
type recorder struct {
	next    http.RoundTripper
	mu      sync.Mutex
	tokens  []string
	secrets []string
}

// secretRE matches the secrets a response body may carry.
var secretRE = regexp.MustCompile(`(ask_live_|whsec_|dk_live_)[A-Za-z0-9_\-+/=]+`)

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens = append(r.tokens, tok)
	r.secrets = append(r.secrets, secretRE.FindAllString(string(body), -1)...)
	return resp, nil
}

// Protects: the quickstart runs to the end against the in-process reference
// server, says what it did at each step, sends only traffic the contract
// allows, and never prints a secret: not the developer key, not the new
// secret key's value, not an installation JWT.
func TestQuickstart(t *testing.T) {
	rec := &recorder{next: apitest.NewValidator(t).WithBasePath("/v1").Transport(nil)}
	var out bytes.Buffer
	if err := run(t.Context(), &out, scribe.WithHTTPClient(&http.Client{Transport: rec})); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := out.String()

	leaked := false
	var jwts, keys int
	for _, tok := range rec.tokens {
		if strings.Count(tok, ".") == 2 {
			jwts++
		}
	}
	for _, s := range rec.secrets {
		if strings.HasPrefix(s, "ask_live_") {
			keys++
		}
	}
	if jwts == 0 || keys == 0 {
		t.Fatalf("recorded %d JWTs and %d secret keys; the recorder missed the traffic", jwts, keys)
	}
	for i, tok := range rec.tokens {
		if tok != "" && strings.Contains(got, tok) {
			leaked = true
			t.Errorf("output carries the bearer token of request %d", i+1)
		}
	}
	for _, secret := range rec.secrets {
		if strings.Contains(got, secret) {
			leaked = true
			t.Errorf("output carries a secret from a response (%s...)", secretRE.FindStringSubmatch(secret)[1])
		}
	}
	// Whatever the traffic, nothing shaped like a secret or a JWT shows.
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(ask_live_|dk_live_|whsec_)[^\[]`),
		regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.`),
	} {
		if loc := re.FindStringIndex(got); loc != nil {
			leaked = true
			t.Errorf("output carries something shaped like a secret at byte %d", loc[0])
		}
	}

	for _, line := range []string{
		"Reference server with demo data at http://127.0.0.1:",
		"with developer key dk_live_[REDACTED]",
		`#100 "CRM sync": user read, transcript read`,
		"created key #2: ask_live_[REDACTED]",
		"#1 Grace Hopper, 0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90 (installed 2026-11-03)",
		"#3 Alan Turing, 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d (uninstalled 2026-11-10)",
		"As installation #1, with a JWT minted from key #2",
		"user #8 Grace Hopper <grace@example.com>",
		`#2 phone_call "Call with Acme"`,
		"3 transcripts in all",
		"404 not_found",
		"Done: 7 requests",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("output lacks %q", line)
		}
	}

	if t.Failed() && !leaked { // never echo a leaked secret into the test log
		t.Logf("output:\n%s", got)
	}
}
