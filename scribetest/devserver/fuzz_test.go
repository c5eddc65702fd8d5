package devserver_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
)

// FuzzAdminAPI holds the admin API (the binary's HTTP door for tests in
// other languages) to its promise on any request to its operations: it
// never panics nor answers 5xx; every answer is a JSON object; a refusal
// says why in "error" (a fault's, in a problem document's "detail") and
// leaves the server as it was, its pending faults included; and a webhook it
// creates is answered with its signing secret, the only time it is shown.
//
//	go test -run '^$' -fuzz FuzzAdminAPI -fuzztime 2m ./scribetest/devserver/
func FuzzAdminAPI(f *testing.F) {
	ops := []struct{ method, path string }{
		{"POST", "/_scribetest/installations"}, {"DELETE", "/_scribetest/installations/"}, {"POST", "/_scribetest/transcripts"},
		{"PATCH", "/_scribetest/transcripts/"}, {"POST", "/_scribetest/webhooks"}, {"GET", "/_scribetest/deliveries"},
		{"POST", "/_scribetest/trigger"}, {"PUT", "/_scribetest/"}, {"POST", "/_scribetest/faults"}, {"DELETE", "/_scribetest/users/"},
		{"PUT", "/_scribetest/rate-limit"}, {"POST", "/_scribetest/scenes"},
	}
	for _, seed := range []struct {
		op        uint8
		arg, body string
	}{
		{0, "", `{"plugin_id":100,"user_id":9}`}, {0, "", `{"plugin_id":100,"user_id":8}`}, {0, "", `{"plugin_id":100}`},
		{1, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", ``}, {1, "0B6D3F9E-2C4A-4E8B-9A1D-5F7C3E2B1A90", ``}, {1, "%2e", ``},
		{2, "", `{"user_id":8,"headline":"h","metadata":{"k":[1]},"job":{"lines":2}}`}, {2, "", `{"user_id":8,"metadata":{"k":}}`},
		{3, "1", `{"headline":"edited","audio":{"length_in_seconds":5}}`}, {3, "1", `{"user_id":9}`}, {3, "99999999999999999999", `{}`},
		{4, "", `{"plugin_id":100,"uri":"https://example.com/hook"}`}, {4, "", `{"plugin_id":100,"uri":"https://u:p@example.com/"}`},
		{5, "", ``}, {6, "", `{"plugin_id":100,"type":"transcript.updated","uri":"https://example.com/t"}`},
		{6, "", `{"plugin_id":101,"type":"transcript.created","uri":"https://example.com/t"}`}, {6, "", `{"plugin_id":100,"type":"x"}`},
		{7, "", `{}`}, {0, "", `[]`}, {2, "", `null`}, {4, "", "{\"plugin_id\":100,\"uri\":\"\xff\"}"},
		{8, "", `{"path":"/users/me","times":2,"status":503}`}, {8, "", `{"status":418}`}, {8, "", `{"drop":true,"status":503}`},
		{8, "", `{"delay_ms":-1}`}, {8, "", `{"path":"users"}`}, {9, "9", ``}, {9, "7", ``}, {9, "x", ``},
		{10, "", `{"limit":2,"window_ms":1000}`}, {10, "", `{"limit":2,"window_ms":10}`}, {11, "", `{"plugin_id":100}`},
	} {
		f.Add(seed.op, seed.arg, seed.body)
	}
	f.Fuzz(func(t *testing.T, op uint8, arg, body string) {
		o := ops[int(op)%len(ops)]
		target := o.path + arg
		if _, err := url.ParseRequestURI(target); err != nil || strings.ContainsAny(target, " \t\r\n#?") {
			return // not a request target a client can send
		}
		receivers := httpmock.NewMockTransport() // every delivery answered 200, without a network
		receivers.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, "ok"))
		s, err := scribetest.NewUnstartedServer(scribetest.WithFixtures(scribetest.DemoFixtures()),
			scribetest.WithWebhookTransport(receivers), scribetest.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		h, err := devserver.New(s, devserver.WithAdminAPI())
		if err != nil {
			t.Fatal(err)
		}
		before := snapshotOf(s)
		r := httptest.NewRequest(o.method, "http://scribe.test"+target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)

		var answer map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s %s %q: %d, the answer is not a JSON object: %q", o.method, target, body, rec.Code, rec.Body)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %v", o.method, target, body, rec.Code, answer)
		}
		if rec.Code != http.StatusOK && rec.Code != http.StatusCreated {
			if msg, _ := answer["error"].(string); msg == "" && answer["code"] == nil {
				t.Fatalf("%s %s %q: %d without a reason: %v", o.method, target, body, rec.Code, answer)
			}
			if diff := cmp.Diff(before, snapshotOf(s), cmp.AllowUnexported(serverState{})); diff != "" {
				t.Fatalf("%s %s %q was refused (%d %v) but changed the server (-before +after):\n%s", o.method, target, body, rec.Code, answer, diff)
			}
			return
		}
		hook, _ := answer["webhook"].(map[string]any)
		created := answer["created"] == true
		if o.path == "/_scribetest/webhooks" {
			hook, created = answer, true
		}
		if created {
			id, _ := hook["id"].(float64)
			plugin, _ := hook["plugin_id"].(float64)
			hooks := s.Webhooks(int64(plugin))
			i := slices.IndexFunc(hooks, func(h scribe.Webhook) bool { return h.ID == int64(id) })
			if secret, _ := hook["signing_secret"].(string); i < 0 || secret != hooks[i].SigningSecret.Reveal() {
				t.Fatalf("%s %s %q created a webhook but did not answer its signing secret: %v", o.method, target, body, answer)
			}
		}
	})
}

// serverState is what FuzzAdminAPI compares before and after a request.
type serverState struct {
	users       []scribe.User
	plugins     []scribe.Plugin
	installs    map[int64][]scribe.PluginInstallation
	transcripts map[int64]scribe.Transcript
	webhooks    []string // id, plugin and uri of each
	faults      []scribetest.Fault
}

func snapshotOf(s *scribetest.Server) serverState {
	st := serverState{users: s.Users(), plugins: s.Plugins(), faults: s.PendingFaults(), installs: map[int64][]scribe.PluginInstallation{}, transcripts: map[int64]scribe.Transcript{}}
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
