package scribetest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// contractExample is the fixture example of docs/server.md ("Fixtures") with its elisions filled in.
const contractExample = `{
  "users": [{"id": 7, "first_name": "Ada", "last_name": "Byron", "email_address": "ada@example.com",
             "developer_key": "dk_live_example"},
            {"id": 8, "first_name": "Grace", "last_name": "Hopper", "email_address": "grace@example.com"}],
  "plugins": [{"id": 100, "user_id": 7, "name": "CRM sync", "description": "",
               "permissions": {"user": "read", "transcript": "read"}, "published": true,
               "disabled": false, "crm_integration_id": null, "logo_uri": ""}],
  "secret_keys": [{"id": 1, "plugin_id": 100, "description": "ci", "value": "ask_live_c2NyaWJlLXRlc3Qtc2VjcmV0LWtleS0zMi1ieXRlcyE"}],
  "installations": [{"id": 1, "uuid": "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", "plugin_id": 100, "user_id": 8, "deleted_on": null}],
  "transcripts": [{"id": 1, "user_id": 8, "headline": "", "text": "", "type": "dictation",
                   "metadata": {}, "job": {"id": 1, "lines": 3},
                   "audio": {"id": 1, "length_in_seconds": 42, "created_on": "2026-11-21T09:29:00Z"}, "created_on": "2026-11-21T09:30:00Z"}],
  "webhooks": [{"id": 1, "plugin_id": 100, "uri": "http://127.0.0.1:9000/hook", "signing_secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}]
}`

// TestContractExampleLoads: the document of docs/server.md, "Fixtures" loads as written,
// and its credentials work through the SDK's own client.
func TestContractExampleLoads(t *testing.T) {
	t.Parallel()
	clock := scribetest.NewFakeClock(t0)
	s := scribetest.NewTestServer(t, scribetest.WithClock(clock))
	fx, err := s.LoadFixtures(strings.NewReader(contractExample))
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Developers) != 1 || fx.Developers[0].Key.Reveal() != "dk_live_example" || len(fx.Users) != 2 {
		t.Fatalf("developers %v, users %v", fx.Developers, fx.Users)
	}
	want := scribe.Plugin{
		ID: 100, Name: "CRM sync", UserID: 7, Published: true,
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead},
		CreatedOn:   t0, UpdatedOn: t0, // omitted timestamps are the clock's now
	}
	if diff := cmp.Diff([]scribe.Plugin{want}, s.Plugins()); diff != "" {
		t.Errorf("plugins (-want +got):\n%s", diff)
	}

	ctx := context.Background()
	dc, err := s.DeveloperClient(fx.Developers[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := dc.GetPlugin(ctx, 100); err != nil || p.Name != "CRM sync" {
		t.Fatalf("GetPlugin = %+v, %v", p, err)
	}
	ic, err := s.InstallationClient(fx.SecretKeys[0].Key, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90")
	if err != nil {
		t.Fatal(err)
	}
	me, err := ic.GetMe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&scribe.User{ID: 8, FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"}, me); diff != "" {
		t.Error(diff)
	}
	tr, err := ic.GetTranscript(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Audio.CreatedOn != time.Date(2026, 11, 21, 9, 29, 0, 0, time.UTC) || tr.Job.Lines != 3 {
		t.Errorf("transcript = %+v", tr)
	}
	if got := s.Webhooks(100); len(got) != 1 || got[0].SigningSecret.Reveal() != "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" {
		t.Errorf("webhooks = %v", got)
	}
}

// TestDemoFixtures: the built-in demo set loads, and its documented
// credentials (docs/server.md) work.
func TestDemoFixtures(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()))
	dk, _ := auth.ParseDeveloperKey("dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM")
	sk, _ := auth.ParseSecretKey("ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF")
	ctx := context.Background()

	dc, err := s.DeveloperClient(dk)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for p, err := range dc.ListPlugins(ctx, nil).All() {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"CRM sync", "Contact card"}, names); diff != "" {
		t.Errorf("demo plugins (-want +got):\n%s", diff)
	}
	ic, err := s.InstallationClient(sk, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range ic.ListTranscripts(ctx, nil).All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("Grace has %d transcripts through the demo installation, want 3", n)
	}
}

// TestFixtureErrorsNameTheMember: a bad document is refused with an error
// naming the member, and leaves the server as it was.
func TestFixtureErrorsNameTheMember(t *testing.T) {
	t.Parallel()
	const dev = `{"id": 7, "developer_key": "dk_live_x"}`
	const plugin = `{"id": 100, "user_id": 7, "name": "P"}`
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"not JSON", `{"users": [`, "fixtures: not valid JSON"},
		{"unknown section", `{"groups": []}`, "fixtures: groups: unknown member"},
		{"unknown user member", `{"users": [{"id": 1, "nickname": "x"}]}`, "fixtures: users[0].nickname: unknown member"},
		{"unknown nested member", `{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "P", "permissions": {"admin": "read"}}]}`, "fixtures: plugins[0].permissions.admin: unknown member"},
		{"wrong type", `{"users": [{"id": "seven"}]}`, "fixtures: users[0].id: must be an integer"},
		{"negative id", `{"users": [{"id": -1}]}`, "fixtures: users[0].id: ids are positive"},
		{"duplicate id", `{"users": [{"id": 7}, {"id": 7}]}`, "fixtures: users[1].id: id 7 appears twice"},
		{"plugin owner missing", `{"plugins": [{"name": "P"}]}`, "fixtures: plugins[0].user_id: is required"},
		{"plugin owner dangling", `{"users": [` + dev + `], "plugins": [{"user_id": 9, "name": "P"}]}`, "fixtures: plugins[0].user_id: no user with id 9"},
		{"plugin owner not a developer", `{"users": [{"id": 8}], "plugins": [{"user_id": 8, "name": "P"}]}`, "fixtures: plugins[0].user_id: user 8 is not a developer"},
		{"plugin name too long", `{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "` + strings.Repeat("n", 101) + `"}]}`, "fixtures: plugins[0].name: must be 1 to 100 characters"},
		{"plugin permission unknown", `{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "P", "permissions": {"user": "write"}}]}`, "fixtures: plugins[0].permissions.user:"},
		{"developer key with a space", `{"users": [{"developer_key": "dk live"}]}`, "fixtures: users[0].developer_key:"},
		{"developer key shaped like a JWT", `{"users": [{"developer_key": "a.b.c"}]}`, "fixtures: users[0].developer_key: must not look like a JWT"},
		{"developer key twice", `{"users": [{"developer_key": "dk_live_x"}, {"developer_key": "dk_live_x"}]}`, "fixtures: users[1].developer_key: this key already belongs to another developer"},
		{"secret key plugin dangling", `{"secret_keys": [{"plugin_id": 5}]}`, "fixtures: secret_keys[0].plugin_id: no plugin with id 5"},
		{"secret key malformed", `{"users": [` + dev + `], "plugins": [` + plugin + `], "secret_keys": [{"plugin_id": 100, "value": "ask_live_short key"}]}`, "fixtures: secret_keys[0].value:"},
		{"installation plugin dangling", `{"users": [{"id": 8}], "installations": [{"plugin_id": 5, "user_id": 8}]}`, "fixtures: installations[0].plugin_id: no plugin with id 5"},
		{"installation user dangling", `{"users": [` + dev + `], "plugins": [` + plugin + `], "installations": [{"plugin_id": 100, "user_id": 5}]}`, "fixtures: installations[0].user_id: no user with id 5"},
		{"installation uuid malformed", `{"users": [` + dev + `], "plugins": [` + plugin + `], "installations": [{"uuid": "0B6D", "plugin_id": 100, "user_id": 7}]}`, "fixtures: installations[0].uuid:"},
		{"installation uuid twice", `{"users": [` + dev + `, {"id": 8}], "plugins": [` + plugin + `], "installations": [{"uuid": "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", "plugin_id": 100, "user_id": 7}, {"uuid": "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", "plugin_id": 100, "user_id": 8}]}`, "fixtures: installations[1].uuid: uuid 0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90 appears twice"},
		{"installed twice", `{"users": [` + dev + `], "plugins": [` + plugin + `], "installations": [{"plugin_id": 100, "user_id": 7}, {"plugin_id": 100, "user_id": 7}]}`, "fixtures: installations[1]: user 7 already has plugin 100 installed"},
		{"transcript user dangling", `{"transcripts": [{"user_id": 3}]}`, "fixtures: transcripts[0].user_id: no user with id 3"},
		{"transcript negative lines", `{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "job": {"lines": -1}}]}`, "fixtures: transcripts[0].job.lines: must be 0 or more"},
		{"webhook plugin dangling", `{"webhooks": [{"plugin_id": 5, "uri": "https://x.example"}]}`, "fixtures: webhooks[0].plugin_id: no plugin with id 5"},
		{"webhook uri not http", `{"users": [` + dev + `], "plugins": [` + plugin + `], "webhooks": [{"plugin_id": 100, "uri": "mailto:a@b"}]}`, "fixtures: webhooks[0].uri:"},
		{"webhook secret malformed", `{"users": [` + dev + `], "plugins": [` + plugin + `], "webhooks": [{"plugin_id": 100, "uri": "https://x.example", "signing_secret": "ask_live_nope"}]}`, "fixtures: webhooks[0].signing_secret:"},
		{"id taken on the server", `{"users": [{"id": 1}]}`, "fixtures: users[0].id: id 1 is already taken on the server"},
		{"explicit id 0", `{"users": [{"id": 0}]}`, "fixtures: users[0].id: ids are positive, got 0; omit id to have one assigned"},
		{"explicit nested id 0", `{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "job": {"id": 0}}]}`, "fixtures: transcripts[0].job.id: ids are positive, got 0"},
		{"duplicate member", `{"users": [{"id": 7, "first_name": "A", "first_name": "B"}]}`, "fixtures: users[0].first_name: appears twice in its object"},
		{"byte order mark", "\xef\xbb\xbf{\"users\": []}", "fixtures: the document begins with a UTF-8 byte order mark"},
		{"webhook uri with user:password@", `{"users": [` + dev + `], "plugins": [` + plugin + `], "webhooks": [{"plugin_id": 100, "uri": "https://admin:hunter2@hooks.example/x"}]}`, "fixtures: webhooks[0].uri:"},
		{"webhook uri of 100 KB", `{"users": [` + dev + `], "plugins": [` + plugin + `], "webhooks": [{"plugin_id": 100, "uri": "https://` + strings.Repeat("h", 100<<10) + `"}]}`, "fixtures: webhooks[0].uri:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := scribetest.NewTestServer(t)
			if _, err := s.CreateUser(scribe.User{ID: 1}); err != nil {
				t.Fatal(err)
			}
			_, err := s.LoadFixtures(strings.NewReader(tt.doc))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one beginning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "ask_live_short") || strings.Contains(err.Error(), "ask_live_nope") || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error quotes a secret: %v", err)
			}
			if len(err.Error()) > 1<<10 {
				t.Errorf("the error is %d bytes; an error quotes at most a bounded excerpt of a value", len(err.Error()))
			}
			if got := len(s.Users()); got != 1 {
				t.Errorf("a refused document left %d users on the server, want the 1 it had", got)
			}
			if got := s.Plugins(); len(got) != 0 {
				t.Errorf("a refused document left plugins on the server: %v", got)
			}
		})
	}
}

// TestRefusedFixturesUndoEverything: a document refused at its last
// resource leaves nothing of the others: the same document, corrected, then
// loads with the same ids, uuids and keys, and the ids the server assigns
// afterwards are those it would have assigned had the refused load never
// happened.
func TestRefusedFixturesUndoEverything(t *testing.T) {
	t.Parallel()
	doc := func(uri string) string {
		return `{"users": [{"id": 7, "developer_key": "dk_live_undo"}, {"first_name": "Grace"}],
		"plugins": [{"id": 100, "user_id": 7, "name": "P", "permissions": {"transcript": "read"}}],
		"secret_keys": [{"plugin_id": 100}],
		"installations": [{"uuid": "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", "plugin_id": 100, "user_id": 7}],
		"transcripts": [{"id": 5, "user_id": 7, "job": {"id": 9}}, {"user_id": 7}],
		"webhooks": [{"plugin_id": 100, "uri": "https://hooks.example/a"}, {"plugin_id": 100, "uri": "` + uri + `"}]}`
	}
	s := scribetest.NewTestServer(t)
	if _, err := s.LoadFixtures(strings.NewReader(doc("mailto:x@y"))); err == nil || !strings.HasPrefix(err.Error(), "fixtures: webhooks[1].uri:") {
		t.Fatalf("error = %v, want the last webhook's uri refused", err)
	}
	if len(s.Users()) != 0 || len(s.Plugins()) != 0 || len(s.Transcripts(7)) != 0 {
		t.Fatalf("a refused document left users %v, plugins %v, transcripts %v", s.Users(), s.Plugins(), s.Transcripts(7))
	}
	fx, err := s.LoadFixtures(strings.NewReader(doc("https://hooks.example/b")))
	if err != nil {
		t.Fatalf("the corrected document: %v", err)
	}
	if fx.Users[1].ID != 8 || fx.Transcripts[1].ID != 6 || fx.Transcripts[1].Job.ID != 10 || fx.Webhooks[0].ID != 1 {
		t.Errorf("assigned ids: user %d, transcript %d, job %d, webhook %d; want 8, 6, 10, 1",
			fx.Users[1].ID, fx.Transcripts[1].ID, fx.Transcripts[1].Job.ID, fx.Webhooks[0].ID)
	}
	if u, err := s.CreateUser(scribe.User{}); err != nil || u.ID != 9 {
		t.Errorf("the next user: %+v, %v; want id 9", u, err)
	}
}

// TestFixtureGeneratedValues: omitted ids come after the explicit ones,
// omitted secrets are generated and work, and an empty developer_key asks
// for a generated one.
func TestFixtureGeneratedValues(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	_, err := s.LoadFixtures(strings.NewReader(`{
		"users": [{"developer_key": ""}, {"id": 50}],
		"plugins": [{"id": 10, "user_id": 50, "name": "explicit"}],
		"secret_keys": [{"plugin_id": 10}],
		"installations": [{"plugin_id": 10, "user_id": 50}],
		"webhooks": [{"plugin_id": 10, "uri": "https://hooks.example/a"}]
	}`))
	if err == nil || !strings.Contains(err.Error(), "plugins[0].user_id: user 50 is not a developer") {
		t.Fatalf("a plugin of a non-developer loaded: %v", err)
	}
	fx, err := s.LoadFixtures(strings.NewReader(`{
		"users": [{"developer_key": ""}, {"id": 50, "developer_key": "dk_live_fifty"}],
		"plugins": [{"id": 10, "user_id": 50, "name": "explicit"}],
		"secret_keys": [{"plugin_id": 10}],
		"installations": [{"plugin_id": 10, "user_id": 50}],
		"webhooks": [{"plugin_id": 10, "uri": "https://hooks.example/a"}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if fx.Users[0].ID != 51 || fx.Users[1].ID != 50 {
		t.Errorf("user ids %d, %d; want the generated one (51) after the explicit one (50)", fx.Users[0].ID, fx.Users[1].ID)
	}
	if len(fx.Developers) != 2 || !strings.HasPrefix(fx.Developers[0].Key.Reveal(), auth.DeveloperKeyPrefix) {
		t.Errorf("developers = %v, want a generated dk_live_ key first", fx.Developers)
	}
	if !strings.HasPrefix(fx.SecretKeys[0].Key.Reveal(), auth.SecretKeyPrefix) || !strings.HasPrefix(fx.Webhooks[0].SigningSecret.Reveal(), "whsec_") {
		t.Error("secrets were not generated")
	}
	ic, err := s.InstallationClient(fx.SecretKeys[0].Key, fx.Installations[0].UUID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ic.GetMe(context.Background()); err == nil || !strings.Contains(err.Error(), "permission_denied") {
		t.Errorf("GetMe with none/none = %v, want permission_denied: the generated key and uuid work", err)
	}
}
