package scribetest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/scribetest"
)

// demoDeveloperKey is the demo set's public developer key (docs/server.md).
const demoDeveloperKey = "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM"

// TestNonCanonicalPathsAreProblems: a path that http.ServeMux would clean (an
// empty, "." or ".." segment, raw or percent-encoded) and a trailing slash are
// answered 404 not_found as problem+json with a Request-Id, the document's
// 404, never the mux's text/html redirect to the cleaned path; with and
// without a base path, with and without a valid credential.
func TestNonCanonicalPathsAreProblems(t *testing.T) {
	t.Parallel()
	paths := []string{
		"//plugins", "/plugins/", "/plugins/./1", "/plugins/1/", "/%2e/plugins",
		"/plugins//1", "/plugins/../plugins", "/./plugins", "/plugins/%2e%2e/1",
		"/plugins/%2E", "/plugins/1/secret_keys/", "/users/me/", "//users/me",
		"/transcripts/.", "/plugins/1/./secret_keys",
	}
	for _, base := range []string{"", "/v1"} {
		s := scribetest.NewTestServer(t, scribetest.WithBasePath(base), scribetest.WithFixtures(scribetest.DemoFixtures()))
		doc := apitest.NewValidator(t).WithBasePath(base)
		targets := []string{}
		for _, p := range paths {
			targets = append(targets, base+p)
		}
		if base != "" {
			targets = append(targets, "/v1//plugins", "//v1/plugins", "/v1/./plugins", "/x/../v1/plugins", "/v1/", "/v1/%2e%2e/v1/plugins")
		}
		for _, target := range targets {
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				for _, token := range []string{"", demoDeveloperKey} {
					name := fmt.Sprintf("%s %s (token %t)", method, target, token != "")
					resp, body := apitest.RawExchange(t, s.URL(), method, target, token)
					if resp.StatusCode != http.StatusNotFound {
						t.Errorf("%s: status %d, want 404 (Location %q, body %.200q)", name, resp.StatusCode, resp.Header.Get("Location"), body)
						continue
					}
					if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
						t.Errorf("%s: Content-Type %q, want application/problem+json", name, ct)
					}
					if loc := resp.Header.Get("Location"); loc != "" {
						t.Errorf("%s: Location %q: the service never redirects", name, loc)
					}
					var p struct {
						Code      string `json:"code"`
						RequestID string `json:"request_id"`
						Detail    string `json:"detail"`
					}
					if err := json.Unmarshal(body, &p); err != nil {
						t.Errorf("%s: body %q is not a problem: %v", name, body, err)
						continue
					}
					id := resp.Header.Get("Request-Id")
					if p.Code != "not_found" || id == "" || p.RequestID != id {
						t.Errorf("%s: code %q, Request-Id %q, request_id %q; want not_found with equal ids", name, p.Code, id, p.RequestID)
					}
					req, err := http.NewRequest(method, s.URL()[:len(s.URL())-len(base)]+target, nil)
					if err != nil {
						t.Fatal(err)
					}
					if err := doc.ValidateResponse(req, resp, body); err != nil {
						t.Errorf("%s: the answer does not conform to api/openapi.yaml: %v", name, err)
					}
				}
			}
		}
		// The canonical forms are still served.
		if resp, body := apitest.RawExchange(t, s.URL(), http.MethodGet, base+"/plugins/100", demoDeveloperKey); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s/plugins/100: status %d, want 200 (%.200q)", base, resp.StatusCode, body)
		}
	}
}
