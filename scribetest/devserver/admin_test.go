package devserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

// adminDo sends a JSON request to the admin API and returns the status and
// the decoded body.
func adminDo(t *testing.T, s *scribetest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	status, v, _ := adminExchange(t, s, method, path, body)
	return status, v
}

// adminExchange is adminDo, with the answer's Content-Type.
func adminExchange(t *testing.T, s *scribetest.Server, method, path, body string) (int, map[string]any, string) {
	t.Helper()
	base := strings.TrimSuffix(s.URL(), "/v1")
	r, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s: %d, body is not a JSON object: %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, v, resp.Header.Get("Content-Type")
}

// Without WithAdminAPI the admin paths do not exist: the contract's 404.
func TestAdminAPIIsOffByDefault(t *testing.T) {
	t.Parallel()
	s := startDev(t, nil)
	status, body := adminDo(t, s, http.MethodPost, "/_scribetest/installations", `{"plugin_id":1,"user_id":1}`)
	if status != http.StatusNotFound || body["code"] != scribe.CodeNotFound {
		t.Errorf("answer = %d %v; want the contract's 404 not_found", status, body)
	}
}

// A test in another language drives events through the admin API: it adds
// its receiver as a webhook, installs, creates and updates a transcript,
// uninstalls, and reads the attempts back; each change reaches the receiver
// signed with the secret the admin API returned.
func TestAdminAPIDrivesEvents(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithBasePath("/v1"),
		scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule)
	rc := newReceiver(t, nil)
	const plugin, user = 100, 9 // the demo set's "CRM sync" and Alan (who has it uninstalled)

	status, hook := adminDo(t, s, http.MethodPost, "/_scribetest/webhooks", fmt.Sprintf(`{"plugin_id":%d,"uri":%q}`, plugin, rc.url()))
	if status != http.StatusOK || !strings.HasPrefix(fmt.Sprint(hook["signing_secret"]), auth.WebhookSecretPrefix) {
		t.Fatalf("POST webhooks = %d %v", status, hook)
	}
	status, inst := adminDo(t, s, http.MethodPost, "/_scribetest/installations", fmt.Sprintf(`{"plugin_id":%d,"user_id":%d}`, plugin, user))
	if status != http.StatusOK {
		t.Fatalf("POST installations = %d %v", status, inst)
	}
	status, tr := adminDo(t, s, http.MethodPost, "/_scribetest/transcripts",
		fmt.Sprintf(`{"user_id":%d,"headline":"Standup","type":"meeting","metadata":{"room":"B2"},"job":{"lines":3},"audio":{"length_in_seconds":42}}`, user))
	if status != http.StatusOK || tr["headline"] != "Standup" {
		t.Fatalf("POST transcripts = %d %v", status, tr)
	}
	status, upd := adminDo(t, s, http.MethodPatch, fmt.Sprintf("/_scribetest/transcripts/%v", tr["id"]), `{"headline":"Standup (edited)"}`)
	if status != http.StatusOK || upd["headline"] != "Standup (edited)" || upd["type"] != "meeting" {
		t.Fatalf("PATCH transcripts = %d %v", status, upd)
	}
	status, del := adminDo(t, s, http.MethodDelete, fmt.Sprintf("/_scribetest/installations/%v", inst["uuid"]), "")
	if status != http.StatusOK || del["deleted_on"] == nil {
		t.Fatalf("DELETE installations = %d %v", status, del)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		t.Fatal(err)
	}

	secret, err := auth.ParseWebhookSecret(fmt.Sprint(hook["signing_secret"]))
	if err != nil {
		t.Fatal(err)
	}
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, g := range rc.got() {
		if err := v.Verify(g.header, g.body); err != nil {
			t.Errorf("delivery %s does not verify with the admin API's secret: %v", g.event.Type, err)
		}
		types = append(types, string(g.event.Type))
	}
	want := []string{"installation.created", "installation.deleted", "transcript.created", "transcript.updated"}
	if diff := cmp.Diff(want, types, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("events received (-want +got):\n%s", diff)
	}

	status, ds := adminDo(t, s, http.MethodGet, "/_scribetest/deliveries", "")
	attempts, _ := ds["attempts"].([]any)
	if status != http.StatusOK || len(attempts) != 4 || len(ds["pending"].([]any)) != 0 {
		t.Fatalf("GET deliveries = %d %v", status, ds)
	}
	first := attempts[0].(map[string]any)
	for _, k := range []string{"event_id", "event_type", "webhook_id", "uri", "attempt", "time", "status_code", "response_body", "error", "duration_ms", "delivered", "final", "permanent"} {
		if _, ok := first[k]; !ok {
			t.Errorf("an attempt lacks %q: %v", k, first)
		}
	}
	if n := s.RequestCount(); n != 0 {
		t.Errorf("RequestCount = %d; admin requests must not count as API traffic", n)
	}
}

// GET /_scribetest/requests lists the request log as Requests() holds it,
// with each request's latency as duration_ms; ?installation= keeps the
// requests whose verified JWT named that installation, as check-receiver
// -server reads a receiver's calls.
func TestAdminRequests(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()))
	key, err := auth.ParseSecretKey("ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF") // the demo set's, public
	if err != nil {
		t.Fatal(err)
	}
	const grace = "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90" // the demo installation
	client, err := s.InstallationClient(key, grace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.GetMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(s.URL() + "/plugins"); err == nil { // no credential: 401, of no installation
		resp.Body.Close()
	}

	status, all := adminDo(t, s, http.MethodGet, "/_scribetest/requests", "")
	reqs, _ := all["requests"].([]any)
	if status != http.StatusOK || len(reqs) != 2 {
		t.Fatalf("GET requests = %d %v; want both requests", status, all)
	}
	first := reqs[0].(map[string]any)
	for _, k := range []string{"time", "method", "path", "query", "idempotency_key", "request_id", "status", "code", "installation", "credential", "duration_ms"} {
		if _, ok := first[k]; !ok {
			t.Errorf("a request lacks %q: %v", k, first)
		}
	}
	if first["installation"] != grace || first["path"] != "/users/me" {
		t.Errorf("the first request = %v; want GET /users/me of installation %s", first, grace)
	}
	_, mine := adminDo(t, s, http.MethodGet, "/_scribetest/requests?installation="+grace, "")
	if got, _ := mine["requests"].([]any); len(got) != 1 {
		t.Errorf("GET requests?installation=%s = %v; want the one request of that installation", grace, mine)
	}
}

// Concurrent triggers with the same uri share one webhook: one of them
// creates it, and every answer carries its signing secret, so no receiver
// is given a secret that half the deliveries are not signed with. A race
// shows in some rounds only, so there are many.
func TestAdminTriggerCreatesOneWebhookPerURI(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule, scribetest.WithAllowedHosts("example.com"))
	h, err := devserver.New(s, devserver.WithAdminAPI())
	if err != nil {
		t.Fatal(err)
	}
	const rounds, n = 40, 16
	for round := range rounds {
		uri := fmt.Sprintf("http://127.0.0.1:1/hook%d", round)
		body := fmt.Sprintf(`{"plugin_id":100,"type":"installation.created","uri":%q}`, uri)
		var wg sync.WaitGroup
		start := make(chan struct{}) // the requests go in together, without a network's jitter
		answers := make([]map[string]any, n)
		for i := range n {
			wg.Go(func() {
				rec := httptest.NewRecorder()
				<-start
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/_scribetest/trigger", strings.NewReader(body)))
				if err := json.Unmarshal(rec.Body.Bytes(), &answers[i]); err != nil || rec.Code != http.StatusOK {
					t.Errorf("trigger %d: %d, %v %s", i, rec.Code, err, rec.Body)
				}
			})
		}
		close(start)
		wg.Wait()
		var hooks []scribe.Webhook
		for _, h := range s.Webhooks(100) {
			if h.URI == uri {
				hooks = append(hooks, h)
			}
		}
		if len(hooks) != 1 {
			t.Fatalf("round %d: %d webhooks of %s after %d concurrent triggers naming it; want 1", round, len(hooks), uri, n)
		}
		created := 0
		for i, a := range answers {
			if a["created"] == true {
				created++
			}
			if hook, _ := a["webhook"].(map[string]any); hook == nil || hook["signing_secret"] != hooks[0].SigningSecret.Reveal() {
				t.Errorf("round %d, trigger %d: the answer's webhook lacks the stored signing secret", round, i)
			}
		}
		if created != 1 {
			t.Errorf("round %d: %d answers say they created the webhook; want 1", round, created)
		}
	}
}

// The admin API refuses what it cannot do, saying why, with the status of
// the seeding call's error.
func TestAdminAPIErrors(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()))
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"unknown member", "POST", "/_scribetest/installations", `{"plugin_id":100,"user_id":8,"extra":1}`, 400, "/extra (byte 29): unknown member"},
		{"trailing data", "POST", "/_scribetest/installations", `{"plugin_id":100,"user_id":9} {}`, 400, "data after the JSON value"},
		{"unknown plugin", "POST", "/_scribetest/installations", `{"plugin_id":999,"user_id":8}`, 404, "plugin 999"},
		{"installed already", "POST", "/_scribetest/installations", `{"plugin_id":100,"user_id":8}`, 409, "already has plugin 100 installed"},
		{"uninstalled already", "DELETE", "/_scribetest/installations/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "", 409, "already uninstalled"},
		{"bad transcript id", "PATCH", "/_scribetest/transcripts/x", `{}`, 400, "positive integer"},
		{"owner change", "PATCH", "/_scribetest/transcripts/1", `{"user_id":9}`, 400, "cannot change"},
		{"bad webhook uri", "POST", "/_scribetest/webhooks", `{"plugin_id":100,"uri":"ftp://x"}`, 400, "uri"},
		{"unknown operation", "GET", "/_scribetest/nothing", "", 404, "no admin operation"},
		{"unknown operation, its path not UTF-8", "GET", "/_scribetest/x%ED", "", 404, `no admin operation GET "/_scribetest/x\xed"`},
		{"trigger of an event the plugin never gets", "POST", "/_scribetest/trigger",
			`{"plugin_id":101,"type":"transcript.created","uri":"http://127.0.0.1:9/hook"}`, 409, `transcript permission "none"`},
		{"trigger of an unknown type", "POST", "/_scribetest/trigger",
			`{"plugin_id":101,"type":"plugin.renamed","uri":"http://127.0.0.1:9/hook"}`, 400, "unknown event type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := adminDo(t, s, tt.method, tt.path, tt.body)
			if status != tt.status || !strings.Contains(fmt.Sprint(body["error"]), tt.want) {
				t.Errorf("%s %s = %d %v; want %d and an error saying %q", tt.method, tt.path, status, body, tt.status, tt.want)
			}
		})
	}
	// A refused trigger made no webhook: one made then would never have its
	// signing secret shown (the next trigger finds it and does not print it).
	if hooks := s.Webhooks(101); len(hooks) != 0 {
		t.Errorf("refused triggers with a uri left %d webhooks on plugin 101", len(hooks))
	}
}
