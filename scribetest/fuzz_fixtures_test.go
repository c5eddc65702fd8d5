package scribetest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// FuzzLoadFixtures holds LoadFixtures to its promise on any document: it
// never panics; a document it refuses gets an error that begins
// "fixtures: ", stays short whatever the document's size, never repeats a
// credential the document holds (a developer_key, a secret key's value, a
// signing_secret), and leaves the server as it was; a document it takes
// adds exactly what it returns, each transcript as the server then serves
// it.
//
//	go test -run '^$' -fuzz FuzzLoadFixtures -fuzztime 2m ./scribetest/
func FuzzLoadFixtures(f *testing.F) {
	demo, err := io.ReadAll(scribetest.DemoFixtures())
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(demo), ``, `{}`, `[]`, `null`, `{"users":[]}`, `{"users":{}}`, `{"users":[5]}`,
		`{"users":[{"id":5,"first_name":"Bo","developer_key":""}],"plugins":[{"user_id":5,"name":"P","permissions":{"transcript":"read"}}],` +
			`"secret_keys":[{"plugin_id":1}],"installations":[{"plugin_id":1,"user_id":1}],` +
			`"transcripts":[{"user_id":1,"headline":"h","metadata":{"k":[1,{"x":null}]},"job":{"lines":3}}],"webhooks":[{"plugin_id":1,"uri":"https://example.com/h"}]}`,
		`{"users":[{"id":1}]}`, `{"users":[{"id":0}]}`, `{"users":[{"id":9007199254740992}]}`,
		`{"users":[{"id":6,"developer_key":"dk_live_not a key"}]}`, `{"users":[{"id":6,"developer_key":"a.b.c"}]}`,
		`{"users":[{"id":6,"developer_key":"dk_live_c2NyaWJlLWZ1enotZGV2ZWxvcGVyLWtleQ"}],"plugins":[{"user_id":6,"name":"P"}],` +
			`"secret_keys":[{"plugin_id":1,"value":"ask_live_short"}]}`,
		`{"users":[{"id":6,"developer_key":""}],"plugins":[{"user_id":6,"name":"P"}],"webhooks":[{"plugin_id":1,"uri":"https://e.com","signing_secret":"whsec_bad!"}]}`,
		`{"transcripts":[{"user_id":1,"metadata":[]}]}`, `{"transcripts":[{"user_id":1,"created_on":"10000-01-01T00:00:00Z"}]}`,
		`{"installations":[{"plugin_id":1,"user_id":1,"uuid":"NOT-A-UUID"}]}`, `{"users":[],"users":[]}`, "{\"users\":[{\"first_name\":\"\xff\"}]}",
	} {
		f.Add(seed)
	}
	// The server starts with a user (1), a developer (2) and a plugin (1),
	// so that a document may refer to them and a refused one has state to
	// leave alone.
	const base = `{"users":[{"id":1,"first_name":"Ada"},{"id":2,"developer_key":""}],"plugins":[{"id":1,"user_id":2,"name":"Base","permissions":{"transcript":"read"}}]}`
	f.Fuzz(func(t *testing.T, doc string) {
		s, err := scribetest.NewUnstartedServer(scribetest.WithFixtures(strings.NewReader(base)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		before := snapshotOf(s)
		got, err := s.LoadFixtures(strings.NewReader(doc))
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "fixtures: ") || len(msg) > 512 {
				t.Fatalf("refused with %q (%d bytes), want a short error beginning \"fixtures: \"", msg, len(msg))
			}
			for _, secret := range credentialsIn(doc) {
				if leaked(t, base, doc, secret, msg) {
					t.Fatalf("the error %q repeats the document's credential %q", msg, secret)
				}
			}
			if diff := cmp.Diff(before, snapshotOf(s), cmp.AllowUnexported(serverState{})); diff != "" {
				t.Fatalf("a refused document (%v) changed the server (-before +after):\n%s", err, diff)
			}
			return
		}
		after := snapshotOf(s)
		if n := len(after.users) - len(before.users); n != len(got.Users) {
			t.Errorf("the load returned %d users and added %d", len(got.Users), n)
		}
		if n := len(after.plugins) - len(before.plugins); n != len(got.Plugins) {
			t.Errorf("the load returned %d plugins and added %d", len(got.Plugins), n)
		}
		if n := len(after.transcripts) - len(before.transcripts); n != got.Transcripts.Len() {
			t.Errorf("the load returned %d transcripts and added %d", got.Transcripts.Len(), n)
		}
		for i, tr := range got.Transcripts.All() {
			if diff := cmp.Diff(after.transcripts[tr.ID], tr); diff != "" {
				t.Errorf("transcript %d of the document differs from the server's (-server +returned):\n%s", i, diff)
			}
		}
	})
}

// leaked reports whether the error msg of loading doc repeats its
// credential secret: whether the error follows the credential when it is
// changed, rather than holding the same text for another reason (a
// credential of "ask_live" is in the error that says keys begin with
// ask_live_).
func leaked(t *testing.T, base, doc, secret, msg string) bool {
	if !strings.Contains(msg, secret) {
		return false
	}
	alt := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r < 'z', r >= 'A' && r < 'Z', r >= '0' && r < '9':
			return r + 1
		case r == 'z', r == 'Z':
			return r - 25
		case r == '9':
			return '0'
		}
		return r
	}, secret)
	if alt == secret {
		return false // nothing to tell it by
	}
	s, err := scribetest.NewUnstartedServer(scribetest.WithFixtures(strings.NewReader(base)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.LoadFixtures(strings.NewReader(strings.ReplaceAll(doc, secret, alt)))
	return err != nil && strings.Contains(err.Error(), alt) && !strings.Contains(err.Error(), secret)
}

// serverState is what FuzzLoadFixtures compares before and after a load.
type serverState struct {
	users       []scribe.User
	plugins     []scribe.Plugin
	installs    map[int64][]scribe.PluginInstallation
	transcripts map[int64]scribe.Transcript
	webhooks    []string // id, plugin and uri of each
}

func snapshotOf(s *scribetest.Server) serverState {
	st := serverState{users: s.Users(), plugins: s.Plugins(), installs: map[int64][]scribe.PluginInstallation{}, transcripts: map[int64]scribe.Transcript{}}
	for _, p := range st.plugins {
		st.installs[p.ID] = s.Installations(p.ID)
		for _, h := range s.Webhooks(p.ID) {
			st.webhooks = append(st.webhooks, fmt.Sprint(h.ID, h.PluginID, h.URI))
		}
	}
	for _, u := range st.users {
		for _, tr := range s.Transcripts(u.ID) {
			st.transcripts[tr.ID] = tr
		}
	}
	return st
}

// credentialsIn returns the credentials a fixture document gives, read
// leniently (the loader may refuse the document for another reason).
func credentialsIn(doc string) []string {
	var d struct {
		Users []struct {
			DeveloperKey any `json:"developer_key"`
		} `json:"users"`
		SecretKeys []struct {
			Value any `json:"value"`
		} `json:"secret_keys"`
		Webhooks []struct {
			SigningSecret any `json:"signing_secret"`
		} `json:"webhooks"`
	}
	_ = json.Unmarshal([]byte(doc), &d) // partial on error: what was read before it
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok && len(s) >= 8 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, u := range d.Users {
		add(u.DeveloperKey)
	}
	for _, k := range d.SecretKeys {
		add(k.Value)
	}
	for _, w := range d.Webhooks {
		add(w.SigningSecret)
	}
	return out
}
