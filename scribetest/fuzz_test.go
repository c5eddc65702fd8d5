package scribetest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/scribetest"
)

// FuzzRequestBodies holds the server's decoding of request bodies to
// api/openapi.yaml, on any body: the server answers 200 exactly when the
// document's validator accepts the request (it takes what the document
// describes, and refuses what it does not), and every answer conforms to
// the document. It sends the body to both operations that take one.
//
//	go test -run '^$' -fuzz FuzzRequestBodies -fuzztime 2m ./scribetest/
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"name":"CRM"}`, `{"name":"CRM","description":"d","permissions":{"user":"read","transcript":"none"},"logo_uri":"https://cdn.example.com/l.png","crm_integration_id":9}`,
		`{"name":null}`, `{"name":"x","crm_integration_id":null}`, `{"name":"x","permissions":null}`, `{"name":"x","nickname":1}`,
		`{"name":"x","name":"y"}`, `{"name":"` + strings.Repeat("n", 101) + `"}`, `{"name":"x","logo_uri":"https://}"}`,
		`{"name":"x","logo_uri":"https://[::1"}`, `{"name":"x","logo_uri":"https://u:p@example.com/"}`, `{"name":"x","logo_uri":""}`,
		`{"name":"x","crm_integration_id":0}`, `{"name":"x","crm_integration_id":9007199254740992}`, `{"description":"k"}`,
		`[]`, `null`, `{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `{"name":"x"} {}`,
	} {
		f.Add(seed)
	}
	s := scribetest.NewTestServer(f, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithAllowedHosts("example.com")) // httptest.NewRequest's Host
	doc := apitest.NewValidator(f)
	var keys atomic.Int64
	f.Fuzz(func(t *testing.T, body string) {
		for _, target := range []string{"/plugins", "/plugins/100/secret_keys"} {
			r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+demoDeveloperKey)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Idempotency-Key", "fuzz-"+strconv.FormatInt(keys.Add(1), 10))
			docErr := doc.ValidateRequest(r)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, r)
			// A body that is not I-JSON (RFC 7493: one value, valid UTF-8,
			// unique member names) is refused whatever the schema says,
			// which the document's validator cannot express.
			iJSON := body == "" || jsontext.Value(body).IsValid()
			if ok := rec.Code == http.StatusOK; ok != (docErr == nil && iJSON) {
				t.Errorf("POST %s %q: the server answered %d, the document %v", target, body, rec.Code, docErr)
			}
			if err := doc.ValidateResponse(r, rec.Result(), rec.Body.Bytes()); err != nil {
				t.Errorf("POST %s %q: the answer does not conform: %v", target, body, err)
			}
		}
	})
}

// FuzzRequestHead holds the server's handling of the request head to
// api/openapi.yaml, on any method, path, query, Idempotency-Key and
// Authorization a client can send (bytes that are not UTF-8 included):
// no answer is a 5xx, and every answer conforms to the document, whatever
// path it is at (an unknown one is the document's 404).
//
//	go test -run '^$' -fuzz FuzzRequestHead -fuzztime 2m ./scribetest/
func FuzzRequestHead(f *testing.F) {
	methods := []string{"GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"}
	for _, seed := range []struct {
		method            uint8
		path, query, idem string
		auth              uint8
		token             string
	}{
		{0, "/v1/transcripts", "limit=2&after_id=1", "", 2, ""}, {0, "/v1/transcripts/1", "", "", 2, ""}, {0, "/v1/users/me", "", "", 2, ""},
		{0, "/v1/plugins", "limit=0", "", 1, ""}, {1, "/v1/plugins/100/secret_keys", "", "k-1", 1, ""}, {0, "/v1/plugins/100/installations", "after_id=-1", "", 1, ""},
		{0, "/v1/plugins/100/webhooks", "limit=101", "", 1, ""}, {0, "/v1/transcripts", "limit=\xff", "", 2, ""}, {1, "/v1/plugins/100/secret_keys", "", "\xed\xa0", 1, ""},
		{0, "/v1/transcripts/\xed", "", "", 2, ""}, {0, "/v1/plugins/9223372036854775808", "", "", 1, ""}, {2, "/v1/plugins", "", "", 1, ""},
		{0, "/v1/transcripts", "", "", 3, "a.b.c"}, {0, "/v1/transcripts", "", "", 3, "dk_live_\xff"}, {0, "/v1/transcripts", "", "", 4, "Basic Zm9v"},
		{0, "/v1//plugins", "", "", 1, ""}, {0, "/v1/plugins/", "", "", 1, ""}, {5, "/v1/transcripts", "", "", 0, ""},
		{3, "/elsewhere/" + strings.Repeat("a", 9000), "", "", 1, ""}, {0, "/v1/transcripts", "", strings.Repeat("k", 40<<10), 2, ""},
	} {
		f.Add(seed.method, seed.path, seed.query, seed.idem, seed.auth, seed.token)
	}
	// Under a base path, so that the document's validator knows which
	// paths are outside every operation.
	s := scribetest.NewTestServer(f, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithBasePath("/v1"), scribetest.WithAllowedHosts("scribe.test"))
	doc := apitest.NewValidator(f).WithBasePath("/v1")
	key, installation := s.SecretKeys(100)[0].Value, s.Installations(100)[0].UUID // the demo plugin's
	f.Fuzz(func(t *testing.T, method uint8, path, query, idem string, authn uint8, token string) {
		r := httptest.NewRequest(methods[int(method)%len(methods)], "http://scribe.test/", nil)
		r.URL.Path, r.URL.RawQuery = path, query
		r.RequestURI = r.URL.RequestURI()
		if !strings.HasPrefix(path, "/") || !sendable(r.RequestURI, true) || !sendable(idem, false) || !sendable(token, false) {
			return // net/http refuses such a request line or header before the service sees it
		}
		if idem != "" {
			r.Header.Set("Idempotency-Key", idem)
		}
		switch authn % 5 {
		case 1:
			r.Header.Set("Authorization", "Bearer "+demoDeveloperKey)
		case 2:
			jwt, err := auth.Mint(key, installation, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Authorization", "Bearer "+jwt)
		case 3:
			r.Header.Set("Authorization", "Bearer "+token)
		case 4:
			r.Header.Set("Authorization", token)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, r)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", r.Method, r.RequestURI, rec.Code, rec.Body)
		}
		if err := doc.ValidateResponse(r, rec.Result(), rec.Body.Bytes()); err != nil {
			t.Errorf("%s %q: the answer (%d %s) does not conform: %v", r.Method, r.RequestURI, rec.Code, rec.Body, err)
		}
	})
}

// sendable reports whether s can be sent in a header field (no control
// bytes but tab) or, when line is true, as the target of a request line
// (no control bytes, no space).
func sendable(s string, line bool) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return r < ' ' && (line || r != '\t') || r == 0x7f || line && r == ' '
	})
}

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
		if n := len(after.transcripts) - len(before.transcripts); n != len(got.Transcripts) {
			t.Errorf("the load returned %d transcripts and added %d", len(got.Transcripts), n)
		}
		for i, tr := range got.Transcripts {
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
