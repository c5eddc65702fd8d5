package scribetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// secretsCompared compares the resources' secrets by their value (they
// print redacted, and hold unexported fields).
var secretsCompared = cmp.Options{
	cmp.Comparer(func(a, b auth.SecretKey) bool { return a.Reveal() == b.Reveal() }),
	cmp.Comparer(func(a, b auth.WebhookSecret) bool { return a.Reveal() == b.Reveal() }),
}

// quiet keeps the log of deliveries left pending at Close out of the test's output.
var quiet = scribetest.WithLogger(slog.New(slog.DiscardHandler))

// resources is everything a server holds that its read-back calls return.
type resources struct {
	Users         []scribe.User
	Plugins       []scribe.Plugin
	SecretKeys    [][]scribe.PluginSecretKey
	Installations [][]scribe.PluginInstallation
	Transcripts   [][]scribe.Transcript
	Webhooks      [][]scribe.Webhook
}

func resourcesOf(s *scribetest.Server) resources {
	r := resources{Users: s.Users(), Plugins: s.Plugins()}
	for _, p := range r.Plugins {
		r.SecretKeys = append(r.SecretKeys, s.SecretKeys(p.ID))
		r.Installations = append(r.Installations, s.Installations(p.ID))
		r.Webhooks = append(r.Webhooks, s.Webhooks(p.ID))
	}
	for _, u := range r.Users {
		r.Transcripts = append(r.Transcripts, s.Transcripts(u.ID))
	}
	return r
}

func exported(t *testing.T, s *scribetest.Server) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.ExportFixtures(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// changed is a server of the demo data, changed through the seeding calls
// and the API: a developer and a plugin of every kind of member, a secret key
// created and one revoked, installations made and unmade, transcripts
// created, updated and deleted, and a webhook whose receiver answers 500,
// so that its deliveries are pending.
func changed(t *testing.T, opts ...scribetest.Option) (*scribetest.Server, scribetest.Developer) {
	t.Helper()
	s := scribetest.NewTestServer(t, append(opts, quiet)...)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Édith", LastName: "Piaf"})
	must(err)
	crm := int64(77)
	p, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "Everything", Description: "all members", Published: true, CRMIntegrationID: &crm,
		LogoURI: "https://example.com/logo.png", Permissions: scribe.Permissions{Transcript: scribe.PermissionRead}})
	must(err)
	_, err = s.DisablePlugin(p.ID)
	must(err)
	_, err = s.EnablePlugin(p.ID)
	must(err)
	k, err := s.CreateSecretKey(p.ID, "revoked")
	must(err)
	must(s.DeleteSecretKey(k.ID))
	_, err = s.CreateSecretKey(p.ID, "kept")
	must(err)
	user, err := s.CreateUser(scribe.User{FirstName: "Nadia", LastName: "Boulanger", EmailAddress: "nadia@example.com"})
	must(err)
	in, err := s.Install(p.ID, user.ID)
	must(err)
	_, err = s.Uninstall(in.UUID)
	must(err)
	_, err = s.Install(p.ID, user.ID)
	must(err)
	tr, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{Headline: "Lesson", Type: "meeting", Text: "Harmony.",
		Metadata: map[string]any{"room": "B2", "n": 3, "tags": []string{"a"}}, Audio: scribe.TranscriptAudio{LengthInSeconds: 90}})
	must(err)
	_, err = s.UpdateTranscript(tr.ID, func(t *scribe.Transcript) { t.Headline = "Lesson (edited)"; t.Job.Lines = 9 })
	must(err)
	gone, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{Headline: "Deleted"})
	must(err)
	must(s.DeleteTranscript(gone.ID))
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	t.Cleanup(failing.Close)
	_, err = s.CreateWebhook(100, failing.URL)
	must(err)
	_, err = s.CreateTranscript(8, scribetest.TranscriptParams{Headline: "After the hook"}) // an event to plugin 100's webhook
	must(err)
	return s, dev
}

// TestExportFixturesRoundTrip: an export loaded into an empty server gives
// the same resources, with the same ids, keys and secrets, and exports the
// same document.
func TestExportFixturesRoundTrip(t *testing.T) {
	t.Parallel()
	a, dev := changed(t, scribetest.WithFixtures(scribetest.DemoFixtures()))
	doc := exported(t, a)
	b := scribetest.NewTestServer(t, scribetest.WithFixtures(bytes.NewReader(doc)))
	if diff := cmp.Diff(resourcesOf(a), resourcesOf(b), secretsCompared); diff != "" {
		t.Errorf("the server loaded from the export differs (-exported +loaded):\n%s", diff)
	}
	if again := exported(t, b); !bytes.Equal(again, doc) {
		t.Errorf("the loaded server exports another document:\n%s\nwant:\n%s", again, doc)
	}
	// The developer keys came along: the loaded server takes them.
	c, err := b.DeveloperClient(dev.Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPlugins(context.Background(), nil).Next(); err != nil {
		t.Errorf("the developer's key on the loaded server: %v", err)
	}
	for _, want := range []string{`"developer_key":"dk_live_`, `"value":"ask_live_`, `"signing_secret":"whsec_`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("the export lacks %s", want)
		}
	}
}

// TestStateDirSurvivesRestart: a server on a state directory, closed and
// started again on it, holds the same resources, credentials, events and
// deliveries, and a pending delivery is still pending.
func TestStateDirSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, dev := changed(t, scribetest.WithStateDir(dir), scribetest.WithFixtures(scribetest.DemoFixtures()))
	eventually(t, "the failing receiver's first attempt", func() bool { return len(a.Deliveries()) > 0 }, attemptsSeen(a))
	want, wantDoc := resourcesOf(a), exported(t, a)
	attempts, pending := a.Deliveries(), a.PendingDeliveries()
	if len(attempts) == 0 || len(pending) != 1 {
		t.Fatalf("before the restart: %d attempts, %d pending; want some and 1", len(attempts), len(pending))
	}
	a.Close()

	b := scribetest.NewTestServer(t, scribetest.WithStateDir(dir), quiet)
	if diff := cmp.Diff(want, resourcesOf(b), secretsCompared); diff != "" {
		t.Errorf("after the restart (-before +after):\n%s", diff)
	}
	if got := exported(t, b); !bytes.Equal(got, wantDoc) {
		t.Errorf("after the restart the export differs:\n%s\nwant:\n%s", got, wantDoc)
	}
	ignoreDuration := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())
	if diff := cmp.Diff(attempts, b.Deliveries()[:len(attempts)], ignoreDuration); diff != "" {
		t.Errorf("the attempts after the restart (-before +after):\n%s", diff)
	}
	if got := b.PendingDeliveries(); len(got) != 1 || got[0].EventID != pending[0].EventID || got[0].Attempts < pending[0].Attempts {
		t.Errorf("pending after the restart: %+v, want the delivery of %s", got, pending[0].EventID)
	}
	if err := b.Resend(pending[0].EventID); err != nil {
		t.Errorf("Resend of an event published before the restart: %v", err)
	}
	c, err := b.DeveloperClient(dev.Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPlugins(context.Background(), nil).Next(); err != nil {
		t.Errorf("a developer key made before the restart: %v", err)
	}
	// New ids follow the ones taken before, a deleted transcript's among them.
	tr, err := b.CreateTranscript(8, scribetest.TranscriptParams{})
	if err != nil {
		t.Fatal(err)
	}
	if last := want.Transcripts[len(want.Transcripts)-1]; tr.ID <= last[len(last)-1].ID {
		t.Errorf("a transcript created after the restart got id %d", tr.ID)
	}
}

// TestStateDirRetryResumes: a delivery that failed, and waits for its
// retry, is retried after a restart when it is due (moving the clock there
// fires it), or at once when that time passed while the server was down.
func TestStateDirRetryResumes(t *testing.T) {
	t.Parallel()
	for _, overdue := range []bool{false, true} {
		t.Run(map[bool]string{false: "due later", true: "overdue"}[overdue], func(t *testing.T) {
			t.Parallel()
			dir, clock := t.TempDir(), scribetest.NewFakeClock(time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC))
			var fail atomic.Bool
			fail.Store(true)
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if fail.Load() {
					w.WriteHeader(503)
				}
			}))
			t.Cleanup(recv.Close)
			opts := []scribetest.Option{scribetest.WithStateDir(dir), scribetest.WithClock(clock), scribetest.WithWebhookSchedule(0, time.Hour), quiet}
			a := scribetest.NewTestServer(t, append(opts, scribetest.WithFixtures(scribetest.DemoFixtures()))...)
			if _, err := a.CreateWebhook(100, recv.URL); err != nil {
				t.Fatal(err)
			}
			in, err := a.Install(100, 9)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, "the first attempt", func() bool { return len(a.Deliveries()) == 1 }, attemptsSeen(a))
			before := a.PendingDeliveries()
			if len(before) != 1 || before[0].NextAttempt.IsZero() {
				t.Fatalf("pending before the restart: %+v, want one waiting for its retry", before)
			}
			a.Close()

			fail.Store(false)
			if overdue {
				clock.Set(before[0].NextAttempt.Add(time.Minute))
			}
			b := scribetest.NewTestServer(t, opts...)
			if !overdue {
				if got := b.PendingDeliveries(); len(got) != 1 || !got[0].NextAttempt.Equal(before[0].NextAttempt) {
					t.Fatalf("pending after the restart: %+v, want the retry at %v", got, before[0].NextAttempt)
				}
				clock.Set(before[0].NextAttempt)
			}
			eventually(t, "the retry after the restart", func() bool { return len(b.PendingDeliveries()) == 0 }, attemptsSeen(b))
			got := b.Deliveries()
			if last := got[len(got)-1]; len(got) != 2 || !last.Delivered || last.Attempt != 2 || last.EventType != webhook.EventInstallationCreated {
				t.Errorf("attempts after the restart: %v; want the first, failed, and the second, delivered", got)
			}
			if b.RequireDelivered(t, got[0].EventID); in.UUID == "" {
				t.Error("no installation")
			}
		})
	}
}

// TestStateDirIdempotencyReplay: an Idempotency-Key answered before a
// restart is replayed after it, and creates nothing more.
func TestStateDirIdempotencyReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const devKey = "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM" // the demo developer's
	post := func(s *scribetest.Server, key, body string) (*http.Response, []byte) {
		r, _ := http.NewRequest("POST", s.URL()+"/plugins", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+devKey)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	a := scribetest.NewTestServer(t, scribetest.WithStateDir(dir), scribetest.WithFixtures(scribetest.DemoFixtures()))
	first, firstBody := post(a, "once", `{"name":"Once"}`)
	refused, refusedBody := post(a, "bad", `{"name":""}`)
	if first.StatusCode != 200 || refused.StatusCode != 400 {
		t.Fatalf("before the restart: %d and %d, want 200 and 400", first.StatusCode, refused.StatusCode)
	}
	plugins := len(a.Plugins())
	a.Close()

	b := scribetest.NewTestServer(t, scribetest.WithStateDir(dir), quiet)
	again, againBody := post(b, "once", `{"name":"Once"}`)
	if again.StatusCode != 200 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(againBody, firstBody) {
		t.Errorf("the key after the restart: %d, Idempotent-Replayed %q, %s; want the first answer replayed: %s",
			again.StatusCode, again.Header.Get("Idempotent-Replayed"), againBody, firstBody)
	}
	if len(b.Plugins()) != plugins {
		t.Errorf("%d plugins after the replay, want %d", len(b.Plugins()), plugins)
	}
	bad, badBody := post(b, "bad", `{"name":""}`)
	var p1, p2 struct{ Code, Detail string }
	_ = json.Unmarshal(refusedBody, &p1)
	_ = json.Unmarshal(badBody, &p2)
	if bad.StatusCode != 400 || bad.Header.Get("Idempotent-Replayed") != "true" || p1 != p2 {
		t.Errorf("the refused key after the restart: %d %+v, Idempotent-Replayed %q; want %+v replayed", bad.StatusCode, p2, bad.Header.Get("Idempotent-Replayed"), p1)
	}
	if other, _ := post(b, "once", `{"name":"Other"}`); other.StatusCode != 409 {
		t.Errorf("the key with another body after the restart: %d, want 409", other.StatusCode)
	}
}

// TestStateDirRefusals: fixtures for a directory that holds a state, a
// directory another server has open, and a state that cannot be read all
// make NewServer fail, saying so, and leave the file as it was.
func TestStateDirRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := scribetest.NewTestServer(t, scribetest.WithStateDir(dir), scribetest.WithFixtures(scribetest.DemoFixtures()))
	if _, err := scribetest.NewServer(scribetest.WithStateDir(dir)); err == nil || !strings.Contains(err.Error(), "in use by another process") || !strings.Contains(err.Error(), dir) {
		t.Errorf("a second server on an open directory: %v; want it refused, naming %s", err, dir)
	}
	a.Close()
	file := filepath.Join(dir, "state.db")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scribetest.NewServer(scribetest.WithStateDir(dir), scribetest.WithFixtures(scribetest.DemoFixtures())); err == nil || !strings.Contains(err.Error(), "already holds a state") {
		t.Errorf("fixtures for a directory that holds a state: %v; want it refused", err)
	}
	damaged := append(bytes.Clone(before[:4096*4]), bytes.Repeat([]byte{0xA5}, 4096)...)
	damaged = append(damaged, before[4096*5:]...)
	if err := os.WriteFile(file, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = scribetest.NewServer(scribetest.WithStateDir(dir))
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("a damaged state: %v; want it refused, naming %s", err, file)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(after, damaged) {
		t.Error("NewServer changed the damaged file")
	}
	if _, err := scribetest.NewServer(scribetest.WithStateDir("")); err == nil {
		t.Error(`WithStateDir("") was accepted`)
	}
}

// TestStateDirLetGoWhenStartFails: a NewServer that cannot listen (its
// address is taken) lets its state directory go, so that a server started
// on the directory afterwards opens it.
func TestStateDirLetGoWhenStartFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := scribetest.NewServer(scribetest.WithStateDir(dir), scribetest.WithAddr(ln.Addr().String())); err == nil {
		t.Fatal("NewServer on an address in use: nil error, want it refused")
	}
	s, err := scribetest.NewServer(scribetest.WithStateDir(dir))
	if err != nil {
		t.Fatalf("NewServer on the directory after a server that could not listen: %v; want it opened", err)
	}
	s.Close()
}

// TestReset: Reset returns the server to the state it started with, with
// the ids it assigns next, and forgets events, deliveries, requests, kept
// answers and faults; on a state directory, durably.
func TestReset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := []scribetest.Option{scribetest.WithStateDir(dir), scribetest.WithFixtures(scribetest.DemoFixtures()), quiet}
	s := scribetest.NewTestServer(t, opts...)
	start := exported(t, s)
	fresh, err := s.CreateUser(scribe.User{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWebhook(100, "http://127.0.0.1:1/hook"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(100, 9); err != nil {
		t.Fatal(err)
	}
	if err := s.FailNext(1, 503); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL() + "/users/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := s.FailNext(1, 503); err != nil {
		t.Fatal(err)
	}
	eventually(t, "an attempt", func() bool { return len(s.Deliveries()) > 0 }, attemptsSeen(s))

	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	check := func(s *scribetest.Server, when string) {
		t.Helper()
		if got := exported(t, s); !bytes.Equal(got, start) {
			t.Errorf("%s: the state is not the one it started with:\n%s\nwant:\n%s", when, got, start)
		}
		if d, p := s.Deliveries(), s.PendingDeliveries(); len(d)+len(p) != 0 {
			t.Errorf("%s: %d attempts and %d pending deliveries left", when, len(d), len(p))
		}
		if u, err := s.CreateUser(scribe.User{}); err != nil || u.ID != fresh.ID {
			t.Errorf("%s: a new user got id %d (%v), want %d, as after the start", when, u.ID, err, fresh.ID)
		}
	}
	check(s, "after Reset")
	if n, f := s.RequestCount(), s.FiredFaults(); n != 0 || len(f) != 0 {
		t.Errorf("after Reset: %d requests and %d fired faults kept", n, len(f))
	}
	resp, err = http.Get(s.URL() + "/users/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 503 {
		t.Error("a fault injected before Reset fired after it")
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	check(scribetest.NewTestServer(t, scribetest.WithStateDir(dir), quiet), "after Reset and a restart")
}

// A server never changed since it started resets to that state too, and
// one never started to the state it holds.
func TestResetUnchanged(t *testing.T) {
	t.Parallel()
	s, err := scribetest.NewUnstartedServer(scribetest.WithFixtures(scribetest.DemoFixtures()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.LoadFixtures(strings.NewReader(`{"users": [{"id": 50}]}`)); err != nil {
		t.Fatal(err)
	}
	want := exported(t, s)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := exported(t, s); !bytes.Equal(got, want) {
		t.Errorf("after Reset:\n%s\nwant:\n%s", got, want)
	}
	if _, err := s.CreateUser(scribe.User{}); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(s.Reset(), s.Reset()); err != nil {
		t.Fatal(err)
	}
	if got := exported(t, s); !bytes.Equal(got, want) {
		t.Errorf("after a change and two Resets:\n%s\nwant:\n%s", got, want)
	}
}
