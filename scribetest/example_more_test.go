package scribetest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// fixedToken is a TokenSource that always sends the same token, as a
// backend that cached a JWT too long would.
type fixedToken string

func (t fixedToken) Token(context.Context) (string, error) { return string(t), nil }

// A FakeClock moves the server's time by hand: timestamps of new resources
// follow it, and so does token expiry, so a test can watch an installation
// JWT expire without waiting an hour.
func ExampleFakeClock() {
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	clock := scribetest.NewFakeClock(t0)
	s, err := scribetest.NewServer(scribetest.WithClock(clock))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{
		Name:        "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead},
	})
	key, _ := s.CreateSecretKey(plugin.ID, "backend")
	grace, _ := s.CreateUser(scribe.User{FirstName: "Grace"})
	inst, _ := s.Install(plugin.ID, grace.ID)

	// A JWT minted now, by the fake clock, and never refreshed...
	jwt, err := auth.Mint(key.Key, inst.UUID, clock.Now())
	if err != nil {
		log.Fatal(err)
	}
	stale, err := scribe.NewClient(s.URL(), scribe.WithTokenSource(fixedToken(jwt)))
	if err != nil {
		log.Fatal(err)
	}
	// ...beside a client whose token source reads the same clock.
	fresh, err := s.InstallationClient(key.Key, inst.UUID)
	if err != nil {
		log.Fatal(err)
	}

	first, _ := s.CreateTranscript(grace.ID, scribetest.TranscriptParams{Headline: "Before"})
	clock.Advance(2 * time.Hour)
	second, _ := s.CreateTranscript(grace.ID, scribetest.TranscriptParams{Headline: "After"})
	fmt.Println(first.CreatedOn.Format(time.RFC3339), second.CreatedOn.Format(time.RFC3339))

	_, err = stale.GetMe(context.Background())
	var apiErr *scribe.Error
	if errors.As(err, &apiErr) {
		fmt.Println("stale token:", apiErr.StatusCode, apiErr.Code)
	}
	me, err := fresh.GetMe(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("refreshed token:", me.FirstName)
	// Output:
	// 2026-11-21T09:00:00Z 2026-11-21T11:00:00Z
	// stale token: 401 token_expired
	// refreshed token: Grace
}

// A fixture document sets up a scene with keys, uuids and ids known in
// advance, the same file a test in another language would load into
// cmd/scribe-server with -fixtures.
func ExampleServer_LoadFixtures() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	fx, err := s.LoadFixtures(strings.NewReader(`{
	  "users": [
	    {"id": 7, "first_name": "Ada", "last_name": "Byron", "email_address": "ada@example.com",
	     "developer_key": "dk_live_c2NyaWJlLWV4YW1wbGUtZGV2ZWxvcGVyLWtleQ"},
	    {"id": 8, "first_name": "Grace", "last_name": "Hopper", "email_address": "grace@example.com"}
	  ],
	  "plugins": [
	    {"id": 100, "user_id": 7, "name": "CRM sync", "permissions": {"user": "read", "transcript": "read"}}
	  ],
	  "secret_keys": [
	    {"id": 1, "plugin_id": 100, "description": "ci", "value": "ask_live_c2NyaWJlLWV4YW1wbGUtc2VjcmV0LWtleS1ETy1OT1QtVVNF"}
	  ],
	  "installations": [
	    {"id": 1, "uuid": "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", "plugin_id": 100, "user_id": 8}
	  ],
	  "transcripts": [
	    {"id": 1, "user_id": 8, "headline": "Weekly sync", "type": "meeting"}
	  ]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(fx.Users), "users,", len(fx.Developers), "developer,", len(fx.Plugins), "plugin")
	fmt.Println(fx.Developers[0].Key, fx.SecretKeys[0].Key) // credentials print redacted

	// The fixture's own secret key signs the installation's tokens.
	client, err := s.InstallationClient(fx.SecretKeys[0].Key, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90")
	if err != nil {
		log.Fatal(err)
	}
	for t, err := range client.ListTranscripts(context.Background(), nil).All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(t.ID, t.Headline, t.User.FirstName)
	}

	// A dangling reference names the member at fault and loads nothing.
	_, err = s.LoadFixtures(strings.NewReader(`{"plugins": [{"id": 200, "user_id": 9, "name": "Orphan"}]}`))
	fmt.Println(err)
	fmt.Println(len(s.Plugins()), "plugin on the server")
	// Output:
	// 2 users, 1 developer, 1 plugin
	// dk_live_[REDACTED] ask_live_[REDACTED]
	// 1 Weekly sync Grace
	// fixtures: plugins[0].user_id: no user with id 9
	// 1 plugin on the server
}

// FailNext tests a caller's retry code: the next requests fail with the
// chosen status, whatever they are, and the request log shows each one.
func ExampleServer_FailNext() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	// The server's clients back off 1 to 10 ms between retries: the retries
	// below take milliseconds.
	client, err := s.DeveloperClient(dev.Key)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// Two failures: the client's two retries get through.
	if err := s.FailNext(2, http.StatusServiceUnavailable); err != nil {
		log.Fatal(err)
	}
	p, err := client.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "CRM sync"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created plugin", p.ID, "; plugins on the server:", len(s.Plugins()))
	for _, r := range s.Requests() {
		fmt.Println(strings.TrimSpace(fmt.Sprint(r.Method, " ", r.Path, " ", r.Status, " ", r.Code)))
	}

	// Three failures outlast them: the caller sees the last one.
	if err := s.FailNext(3, http.StatusServiceUnavailable); err != nil {
		log.Fatal(err)
	}
	_, err = client.GetPlugin(ctx, p.ID)
	var apiErr *scribe.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}
	fmt.Println(len(s.FiredFaults()), "faults fired")
	// Output:
	// created plugin 1 ; plugins on the server: 1
	// POST /plugins 503 service_unavailable
	// POST /plugins 503 service_unavailable
	// POST /plugins 200
	// 503 service_unavailable
	// 5 faults fired
}
