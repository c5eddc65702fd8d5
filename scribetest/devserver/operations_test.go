package devserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

// demoJWT mints a token of the demo set's installation of Grace.
func demoJWT(t *testing.T, s *scribetest.Server) string {
	t.Helper()
	key, err := auth.ParseSecretKey("ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF") // the demo set's, public
	if err != nil {
		t.Fatal(err)
	}
	jwt, err := auth.Mint(key, demoInstalled, s.Clock().Now())
	if err != nil {
		t.Fatal(err)
	}
	return jwt
}

// getMe sends GET /users/me with token and returns the answer's status and
// Retry-After.
func getMe(t *testing.T, s *scribetest.Server, token string) (int, string) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodGet, s.URL()+"/users/me", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// postFault posts a fault and returns the status, the answer decoded and
// its Content-Type.
func postFault(t *testing.T, s *scribetest.Server, body string) (int, map[string]any, string) {
	t.Helper()
	return adminExchange(t, s, http.MethodPost, "/_scribetest/faults", body)
}

// A fault posted to the admin API is InjectFault's: 201 with the fault,
// then the next two GET /users/me answer 503 and the third is served; GET
// lists it pending with what is left of its times, then fired; DELETE
// clears what is pending.
func TestAdminFaults(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()))
	jwt := demoJWT(t, s)
	code, f, _ := postFault(t, s, `{"method":"GET","path":"/users/me","times":2,"status":503,"retry_after_ms":1500}`)
	want := map[string]any{"method": "GET", "path": "/users/me", "times": 2.0, "status": 503.0, "retry_after_ms": 1500.0, "drop": false, "delay_ms": 0.0}
	if diff := cmp.Diff(want, f); code != http.StatusCreated || diff != "" {
		t.Fatalf("POST faults: %d (-want +got):\n%s", code, diff)
	}
	if status, retry := getMe(t, s, jwt); status != http.StatusServiceUnavailable || retry != "2" {
		t.Errorf("the first GET /users/me: %d Retry-After %q, want 503 and 2", status, retry)
	}
	_, listed := adminDo(t, s, http.MethodGet, "/_scribetest/faults", "")
	pending, _ := listed["pending"].([]any)
	if len(pending) != 1 || pending[0].(map[string]any)["times"] != 1.0 || len(listed["fired"].([]any)) != 1 {
		t.Errorf("GET faults after one use = %v; want it pending once more, and fired once", listed)
	}
	if status, _ := getMe(t, s, jwt); status != http.StatusServiceUnavailable {
		t.Errorf("the second GET /users/me: %d, want 503", status)
	}
	if status, _ := getMe(t, s, jwt); status != http.StatusOK {
		t.Errorf("the third GET /users/me: %d, want 200", status)
	}
	_, listed = adminDo(t, s, http.MethodGet, "/_scribetest/faults", "")
	fired, _ := listed["fired"].([]any)
	if len(listed["pending"].([]any)) != 0 || len(fired) != 2 || fired[1].(map[string]any)["path"] != "/users/me" {
		t.Errorf("GET faults once used up = %v", listed)
	}
	if code, _, _ := postFault(t, s, `{"times":-1,"status":500}`); code != http.StatusCreated {
		t.Fatalf("POST an endless fault: %d", code)
	}
	code, cleared := adminDo(t, s, http.MethodDelete, "/_scribetest/faults", "")
	if code != http.StatusOK || len(cleared["pending"].([]any)) != 0 || len(s.PendingFaults()) != 0 || len(s.FiredFaults()) != 2 {
		t.Errorf("DELETE faults = %d %v; want nothing pending, the fired ones kept", code, cleared)
	}
	if status, _ := getMe(t, s, jwt); status != http.StatusOK {
		t.Errorf("GET /users/me after DELETE: %d, want 200", status)
	}
}

// A fault the server cannot play is a 400 problem document whose detail
// and member name the member and the reason, and nothing is injected.
func TestAdminFaultRefusals(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithBasePath("/v1"))
	for body, want := range map[string][2]string{
		`{"status":418}`:                      {"status", "418 is not one the contract declares"},
		`{"drop":true,"status":503}`:          {"drop", "excludes a status"},
		`{"status":503,"retry_after_ms":-1}`:  {"retry_after_ms", "must be from 0 to"},
		`{"delay_ms":99999999999999999}`:      {"delay_ms", "must be from 0 to"},
		`{"retry_after_ms":5,"delay_ms":1}`:   {"retry_after_ms", "needs a status"},
		`{"path":"plugins","status":503}`:     {"path", "beginning with /"},
		`{"path":"/v1/plugins","status":503}`: {"path", "relative to the base path"},
		`{"method":"GET /x","status":503}`:    {"method", "not an HTTP method"},
		`{"times":"2","status":503}`:          {"times", "must be an integer"},
		`{"status":503,"sttus":503}`:          {"sttus", "unknown member"},
		`{}`:                                  {"", "the fault does nothing"},
		`[]`:                                  {"", "one JSON object"},
	} {
		code, p, ct := postFault(t, s, body)
		detail, _ := p["detail"].(string)
		if code != http.StatusBadRequest || ct != "application/problem+json" || p["member"] != want[0] ||
			!strings.Contains(detail, want[1]) || p["status"] != 400.0 || p["code"] != scribe.CodeValidationFailed ||
			(want[0] != "" && !strings.HasPrefix(detail, want[0]+": ")) {
			t.Errorf("POST faults %s: %d %s %v; want a 400 problem naming %q and saying %q", body, code, ct, p, want[0], want[1])
		}
	}
	if n := len(s.PendingFaults()); n != 0 {
		t.Errorf("refused faults injected %d", n)
	}
}

// PUT /_scribetest/rate-limit is SetRateLimit: with 2 a second, the third
// call of a second is 429 with Retry-After; limit 0 turns it off; a window
// under a second is refused.
func TestAdminRateLimit(t *testing.T) {
	t.Parallel()
	clock := scribetest.NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithClock(clock))
	jwt := demoJWT(t, s)
	if code, body := adminDo(t, s, http.MethodPut, "/_scribetest/rate-limit", `{"limit":2,"window_ms":1000}`); code != http.StatusOK ||
		body["limit"] != 2.0 || body["window_ms"] != 1000.0 {
		t.Fatalf("PUT rate-limit = %d %v", code, body)
	}
	for i, want := range []int{200, 200, 429} {
		if status, retry := getMe(t, s, jwt); status != want || (want == 429 && retry != "1") {
			t.Errorf("call %d: %d Retry-After %q, want %d", i+1, status, retry, want)
		}
	}
	clock.Advance(time.Second)
	if status, _ := getMe(t, s, jwt); status != http.StatusOK {
		t.Errorf("in the next window: %d, want 200", status)
	}
	if code, body := adminDo(t, s, http.MethodPut, "/_scribetest/rate-limit", `{"limit":2,"window_ms":500}`); code != http.StatusBadRequest ||
		!strings.Contains(body["error"].(string), "at least 1s") {
		t.Errorf("a window of 500 ms = %d %v; want 400", code, body)
	}
	if code, _ := adminDo(t, s, http.MethodPut, "/_scribetest/rate-limit", `{"limit":0}`); code != http.StatusOK {
		t.Fatalf("PUT rate-limit off = %d", code)
	}
	for range 3 {
		if status, _ := getMe(t, s, jwt); status != http.StatusOK {
			t.Errorf("with the limit off: %d", status)
		}
	}
}

// The health check answers 200 {"status":"ok"} with or without the admin
// API; without it, the rest of /_scribetest/ is the contract's 404.
func TestHealth(t *testing.T) {
	t.Parallel()
	for _, dev := range [][]devserver.Option{nil, {devserver.WithAdminAPI()}} {
		s := startDev(t, dev, scribetest.WithBasePath("/v1"))
		root := strings.TrimSuffix(s.URL(), "/v1")
		resp, err := http.Get(root + devserver.HealthPath)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != `{"status":"ok"}`+"\n" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("admin %v: GET %s = %d %q %s", dev != nil, devserver.HealthPath, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	if _, err := devserver.New(nil); err == nil {
		t.Error("New(nil): no error")
	}
}

// DELETE /_scribetest/users/{id} removes a user with their installations
// and transcripts, emitting no event; a developer with plugins is 409.
func TestAdminDeleteUser(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule)
	rc := newReceiver(t, nil)
	if _, err := s.CreateWebhook(demoPlugin, rc.url()); err != nil {
		t.Fatal(err)
	}
	jwt := demoJWT(t, s)
	if code, body := adminDo(t, s, http.MethodDelete, "/_scribetest/users/8", ""); code != http.StatusOK || body["user_id"] != 8.0 {
		t.Fatalf("DELETE users/8 = %d %v", code, body)
	}
	for _, in := range s.Installations(demoPlugin) {
		if in.UserID == 8 {
			t.Errorf("Grace's installation %s is still listed", in.UUID)
		}
	}
	if ts := s.Transcripts(8); len(ts) != 0 {
		t.Errorf("Grace still has %d transcripts", len(ts))
	}
	if status, _ := getMe(t, s, jwt); status != http.StatusUnauthorized {
		t.Errorf("her installation's JWT: %d, want 401", status)
	}
	for path, want := range map[string]int{"/_scribetest/users/8": 404, "/_scribetest/users/7": 409, "/_scribetest/users/x": 400} {
		if code, body := adminDo(t, s, http.MethodDelete, path, ""); code != want || body["error"] == nil {
			t.Errorf("DELETE %s = %d %v, want %d", path, code, body, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil || len(rc.got()) != 0 {
		t.Errorf("deleting a user emitted %d events (%v)", len(rc.got()), err)
	}
}

// The admin API creates a webhook with a secret the caller chooses, so that
// receivers already running with it (replicas behind one URL) verify its
// deliveries; without one the webhook gets a fresh secret. A malformed
// secret is a 400 that does not repeat it.
func TestAdminCreatesWebhookWithGivenSecret(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule)
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	code, body := adminDo(t, s, http.MethodPost, "/_scribetest/webhooks",
		`{"plugin_id":100,"uri":"`+rc.url()+`","signing_secret":"`+secret.Reveal()+`"}`)
	if code != http.StatusOK || body["signing_secret"] != secret.Reveal() {
		t.Fatalf("POST /_scribetest/webhooks with signing_secret: %d %v", code, body)
	}
	if _, err := s.Install(demoPlugin, 9); err != nil {
		t.Fatal(err)
	}
	s.RequireDelivered(t)
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	got := rc.got()
	if len(got) != 1 || v.Verify(got[0].header, got[0].body) != nil {
		t.Errorf("the delivery does not verify with the chosen secret: %d deliveries", len(got))
	}
	code, body = adminDo(t, s, http.MethodPost, "/_scribetest/webhooks", `{"plugin_id":100,"uri":"http://127.0.0.1:1/b"}`)
	if fresh, _ := body["signing_secret"].(string); code != http.StatusOK || !strings.HasPrefix(fresh, "whsec_") || fresh == secret.Reveal() {
		t.Errorf("without signing_secret: %d %v, want a fresh secret", code, body)
	}
	code, body = adminDo(t, s, http.MethodPost, "/_scribetest/webhooks", `{"plugin_id":100,"uri":"http://127.0.0.1:1/c","signing_secret":"whsec_not base64!"}`)
	if msg, _ := body["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, "signing_secret") || strings.Contains(msg, "not base64!") {
		t.Errorf("a malformed signing_secret: %d %v, want 400 naming the member without repeating it", code, body)
	}
}

// POST /_scribetest/events/{id}/resend, with an empty body, is Resend: 200,
// or 404 for an id the server never emitted.
func TestAdminResend(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule)
	rc := newReceiver(t, nil)
	if _, err := s.CreateWebhook(demoPlugin, rc.url()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(demoPlugin, 9); err != nil {
		t.Fatal(err)
	}
	id := s.RequireDelivered(t)[0].EventID
	for _, tc := range []struct {
		id   string
		code int
	}{{"evt_nope", http.StatusNotFound}, {id, http.StatusOK}} {
		if code, body := adminDo(t, s, http.MethodPost, "/_scribetest/events/"+tc.id+"/resend", ""); code != tc.code {
			t.Errorf("POST /_scribetest/events/%s/resend: %d %v, want %d", tc.id, code, body, tc.code)
		}
	}
	if as := s.RequireDelivered(t, id); len(as) != 2 || as[1].Attempt != 2 {
		t.Errorf("attempts after the resend: %v", as)
	}
	if n := len(rc.got()); n != 2 {
		t.Errorf("the receiver got %d deliveries, want 2", n)
	}
}

// TestNonCanonicalAdminPaths protects the same rule for the admin API: its
// mux would redirect "/_scribetest//deliveries" too; it answers 404 in the
// admin API's own {"error"} shape instead.
func TestNonCanonicalAdminPaths(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithBasePath("/v1"))
	for _, target := range []string{"/_scribetest//deliveries", "/_scribetest/./deliveries", "/_scribetest/deliveries/", "/_scribetest/%2e/deliveries"} {
		resp, body := apitest.RawExchange(t, s.URL(), http.MethodGet, target, "")
		var e struct{ Error string }
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Location") != "" ||
			resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("GET %s: %d %q Location %q body %.200q; want 404 application/json {\"error\"}",
				target, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Location"), body)
		}
	}
	if resp, body := apitest.RawExchange(t, s.URL(), http.MethodGet, "/_scribetest/deliveries", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /_scribetest/deliveries: %d, want 200 (%.200q)", resp.StatusCode, body)
	}
}
