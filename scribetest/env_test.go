package scribetest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// t0 is the fake clock's start in every test.
var t0 = time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)

// env is a seeded server: two developers, their plugins, and a user who has
// installed several of them.
type env struct {
	s     *scribetest.Server
	clock *scribetest.FakeClock
	hc    *http.Client

	devA, devB scribetest.Developer
	user       scribe.User // Grace: installs plugins, owns transcripts
	other      scribe.User // Alan: owns a transcript nobody's plugin may see

	plugin         scribe.Plugin // devA's, user+transcript read
	pluginB        scribe.Plugin // devB's
	pluginNone     scribe.Plugin // devA's, no permissions
	pluginDisabled scribe.Plugin // devA's, disabled after install

	key, keyNone, keyDisabled scribetest.SecretKey

	inst, instNone, instDisabled scribe.PluginInstallation

	transcripts     []scribe.Transcript // user's, ascending ids
	otherTranscript scribe.Transcript
}

// newEnv starts a seeded server under /v1, with a fake clock, and an HTTP
// client that checks every response against api/openapi.yaml.
func newEnv(t *testing.T, opts ...scribetest.Option) *env {
	t.Helper()
	e := &env{clock: scribetest.NewFakeClock(t0)}
	e.s = scribetest.NewTestServer(t, append([]scribetest.Option{scribetest.WithClock(e.clock), scribetest.WithBasePath("/v1")}, opts...)...)
	e.hc = &http.Client{Transport: allowInvalid{apitest.NewValidator(t).WithBasePath("/v1").Transport(nil)}}

	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	e.devA, err = e.s.CreateDeveloper(scribe.User{FirstName: "Ada", LastName: "Byron", EmailAddress: "ada@example.com"})
	must(err)
	e.devB, err = e.s.CreateDeveloper(scribe.User{FirstName: "Barbara", LastName: "Liskov", EmailAddress: "barbara@example.com"})
	must(err)
	e.user, err = e.s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"})
	must(err)
	e.other, err = e.s.CreateUser(scribe.User{FirstName: "Alan", LastName: "Turing", EmailAddress: "alan@example.com"})
	must(err)

	read := scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}
	e.plugin, err = e.s.CreatePlugin(e.devA.User.ID, scribe.Plugin{Name: "CRM sync", Permissions: read, Published: true})
	must(err)
	e.pluginB, err = e.s.CreatePlugin(e.devB.User.ID, scribe.Plugin{Name: "B's plugin", Permissions: read})
	must(err)
	e.pluginNone, err = e.s.CreatePlugin(e.devA.User.ID, scribe.Plugin{Name: "No permissions"})
	must(err)
	e.pluginDisabled, err = e.s.CreatePlugin(e.devA.User.ID, scribe.Plugin{Name: "Soon disabled", Permissions: read})
	must(err)

	e.key, err = e.s.CreateSecretKey(e.plugin.ID, "ci")
	must(err)
	e.keyNone, err = e.s.CreateSecretKey(e.pluginNone.ID, "")
	must(err)
	e.keyDisabled, err = e.s.CreateSecretKey(e.pluginDisabled.ID, "")
	must(err)

	e.inst, err = e.s.Install(e.plugin.ID, e.user.ID)
	must(err)
	e.instNone, err = e.s.Install(e.pluginNone.ID, e.user.ID)
	must(err)
	e.instDisabled, err = e.s.Install(e.pluginDisabled.ID, e.user.ID)
	must(err)
	e.pluginDisabled, err = e.s.DisablePlugin(e.pluginDisabled.ID)
	must(err)

	for i, typ := range []string{"meeting", "dictation", "phone_call"} {
		tr, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{
			Headline: "Transcript " + typ, Text: "Line one.", Type: typ,
			Job: scribe.TranscriptJob{Lines: i + 1}, Audio: scribe.TranscriptAudio{LengthInSeconds: 42},
		})
		must(err)
		e.transcripts = append(e.transcripts, tr)
	}
	e.otherTranscript, err = e.s.CreateTranscript(e.other.ID, scribetest.TranscriptParams{Headline: "Alan's", Type: "dictation"})
	must(err)
	return e
}

// allowInvalid marks every request as possibly outside the contract: the
// validator then checks only what the server answers (and that it refuses,
// with a 4xx, whatever the contract forbids).
type allowInvalid struct{ next http.RoundTripper }

func (a allowInvalid) RoundTrip(r *http.Request) (*http.Response, error) {
	return a.next.RoundTrip(r.WithContext(apitest.AllowInvalidRequest(r.Context())))
}

// jwt mints an installation JWT at the fake clock's time.
func (e *env) jwt(t *testing.T, key scribetest.SecretKey, uuid string) string {
	t.Helper()
	tok, err := auth.Mint(key.Key, uuid, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (e *env) userToken(t *testing.T) string { return e.jwt(t, e.key, e.inst.UUID) }

// req describes one request of a test.
type req struct {
	method string
	path   string // relative to the base URL
	token  string // "" sends no Authorization header
	body   string
	header map[string]string
}

// do sends rq and returns the response with its body read.
func (e *env) do(t *testing.T, rq req) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	r, err := http.NewRequestWithContext(context.Background(), rq.method, e.s.URL()+rq.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if rq.token != "" {
		r.Header.Set("Authorization", "Bearer "+rq.token)
	}
	if rq.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range rq.header {
		if v == "" {
			r.Header.Del(k)
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := e.hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// problemOf decodes a problem document, failing t if the body is not one.
func problemOf(t *testing.T, resp *http.Response, body []byte) wire.Problem {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != wire.ProblemContentType {
		t.Fatalf("Content-Type = %q, want %q; body %s", ct, wire.ProblemContentType, body)
	}
	var p wire.Problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body does not decode: %v: %s", err, body)
	}
	return p
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("body does not decode as %T: %v: %s", v, err, body)
	}
	return v
}

// statusesOf sends rq n times concurrently and counts the statuses answered.
func (e *env) statusesOf(t *testing.T, n int, rq req) map[int]int {
	t.Helper()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		status = map[int]int{}
	)
	for range n {
		wg.Go(func() {
			resp, _ := e.do(t, rq)
			mu.Lock()
			status[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return status
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
