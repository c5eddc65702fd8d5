package devserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/scribetest"
)

// DNS rebinding (issue 49): a page whose name was made to resolve to the
// server's address sends its own name as Host. Every route refuses it,
// reads and writes alike, the service's included, whatever spelling of the
// path (the check is on the decoded path, as the mux routes); the same
// requests under an IP literal, localhost or an allowed name are served.
func TestForeignHostIsRefusedOnEveryRoute(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithAllowedHosts("scribe"))
	base := strings.TrimSuffix(s.URL(), "/")
	port := base[strings.LastIndex(base, ":"):]
	routes := []struct{ method, path, body string }{
		{"GET", "/_scribetest/deliveries", ""}, {"GET", "/_scribetest/requests", ""}, {"GET", "/_scribetest/healthz", ""},
		{"GET", "/_scribetest/ui/events", ""}, {"GET", "/_scribetest/%75i/events", ""}, {"GET", "/_scribetest/%64eliveries", ""},
		{"POST", "/_scribetest/trigger", `{"plugin_id":100,"type":"installation.created","uri":"http://127.0.0.1:1/HOOK"}`},
		{"POST", "/_scribetest/ui/trigger", "plugin_id=100&type=installation.created&uri=http%3A%2F%2F127.0.0.1%3A1%2FHOOK"},
		{"GET", "/plugins", ""}, {"GET", "/users/me", ""},
	}
	before, tries := len(s.Webhooks(100)), 0
	for _, rt := range routes {
		for host, want := range map[string]bool{"evil.example" + port: false, "evil.example": false, "127.0.0.1" + port: true, "localhost" + port: true, "scribe" + port: true} {
			tries++ // a fresh webhook URI per trigger, so each one served adds a webhook
			req, _ := http.NewRequest(rt.method, base+rt.path, strings.NewReader(strings.ReplaceAll(rt.body, "HOOK", strconv.Itoa(tries))))
			req.Host = host
			if strings.HasPrefix(rt.path, "/_scribetest/ui/") && rt.method == "POST" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			refused := resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), "-allowed-hosts")
			if refused == want {
				t.Errorf("%s %s, Host %s: %d %.200s; want refused=%v", rt.method, rt.path, host, resp.StatusCode, body, !want)
			}
			if !want && !strings.Contains(string(body), host) {
				t.Errorf("%s %s, Host %s: the refusal %.200s does not name the host", rt.method, rt.path, host, body)
			}
		}
	}
	if n := len(s.Webhooks(100)) - before; n != 6 { // one per allowed host and trigger route
		t.Errorf("the triggers added %d webhooks, want 6: a refused trigger must register none", n)
	}
	for _, r := range s.Requests() {
		if r.Status == http.StatusForbidden {
			t.Errorf("a refused request is in the request log: %+v", r)
		}
	}
}

// A foreign Host's refusal names its request as every answer does: a
// service path and an admin path alike get a non-empty Request-Id, a fresh
// one each, and the problem document's request_id equals it.
func TestForeignHostRefusalHasRequestID(t *testing.T) {
	t.Parallel()
	s := newDevServer(t)
	seen := map[string]bool{}
	for _, path := range []string{"/plugins", "/plugins", "/_scribetest/deliveries", "/_scribetest/requests"} {
		req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(s.URL(), "/")+path, nil)
		req.Host = "evil.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		id := resp.Header.Get("Request-Id")
		if err != nil || resp.StatusCode != http.StatusForbidden || p.Code != "host_not_allowed" {
			t.Fatalf("GET %s: %d %q (%v), want 403 host_not_allowed", path, resp.StatusCode, p.Code, err)
		}
		if id == "" || p.RequestID != id || seen[id] {
			t.Errorf("GET %s: Request-Id %q, request_id %q; want one fresh, non-empty id in both", path, id, p.RequestID)
		}
		seen[id] = true
	}
}
