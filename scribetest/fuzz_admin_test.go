package scribetest_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// acceptAll answers every webhook delivery 200 without a network.
type acceptAll struct{}

func (acceptAll) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("ok")), Header: http.Header{}, Request: r}, nil
}

// FuzzAdminAPI holds the admin API (the binary's HTTP door for tests in
// other languages) to its promise on any request to its operations: it
// never panics nor answers 5xx; every answer is a JSON object; a refusal
// says why in "error" and leaves the server as it was; and a webhook it
// creates is answered with its signing secret, the only time it is shown.
//
//	go test -run '^$' -fuzz FuzzAdminAPI -fuzztime 2m ./scribetest/
func FuzzAdminAPI(f *testing.F) {
	ops := []struct{ method, path string }{
		{"POST", "/_scribetest/installations"}, {"DELETE", "/_scribetest/installations/"}, {"POST", "/_scribetest/transcripts"},
		{"PATCH", "/_scribetest/transcripts/"}, {"POST", "/_scribetest/webhooks"}, {"GET", "/_scribetest/deliveries"},
		{"POST", "/_scribetest/trigger"}, {"PUT", "/_scribetest/"},
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
	} {
		f.Add(seed.op, seed.arg, seed.body)
	}
	f.Fuzz(func(t *testing.T, op uint8, arg, body string) {
		o := ops[int(op)%len(ops)]
		target := o.path + arg
		if _, err := url.ParseRequestURI(target); err != nil || strings.ContainsAny(target, " \t\r\n#?") {
			return // not a request target a client can send
		}
		s, err := scribetest.NewUnstartedServer(scribetest.WithAdminAPI(), scribetest.WithFixtures(scribetest.DemoFixtures()),
			scribetest.WithWebhookTransport(acceptAll{}), scribetest.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		before := snapshotOf(s)
		r := httptest.NewRequest(o.method, "http://scribe.test"+target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, r)

		var answer map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("%s %s %q: %d, the answer is not a JSON object: %q", o.method, target, body, rec.Code, rec.Body)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %v", o.method, target, body, rec.Code, answer)
		}
		if rec.Code != http.StatusOK {
			if msg, _ := answer["error"].(string); msg == "" && answer["code"] == nil {
				t.Fatalf("%s %s %q: %d without a reason: %v", o.method, target, body, rec.Code, answer)
			}
			if diff := cmp.Diff(before, snapshotOf(s), cmp.AllowUnexported(serverState{})); diff != "" {
				t.Fatalf("%s %s %q was refused (%d %v) but changed the server (-before +after):\n%s", o.method, target, body, rec.Code, answer, diff)
			}
			return
		}
		hook, _ := answer["webhook"].(map[string]any)
		if o.path == "/_scribetest/webhooks" {
			hook = answer
		}
		if created := answer["created"] == true || o.path == "/_scribetest/webhooks"; created {
			id, _ := hook["id"].(float64)
			plugin, _ := hook["plugin_id"].(float64)
			i := slices.IndexFunc(s.Webhooks(int64(plugin)), func(h scribe.Webhook) bool { return h.ID == int64(id) })
			if secret, _ := hook["signing_secret"].(string); i < 0 || secret != s.Webhooks(int64(plugin))[i].SigningSecret.Reveal() {
				t.Fatalf("%s %s %q created a webhook but did not answer its signing secret: %v", o.method, target, body, answer)
			}
		}
	})
}
