package scribetest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/scribetest"
)

// The docs' URLs carry /v1; a server started without a base path serves
// without it. A request under /v1/ there gets the contract's 404 whose
// detail says how to fix it: drop /v1, or start the server with
// -base-path /v1. Under a base path, a path outside it says so instead.
func TestVersionPrefixWithoutBasePathIsExplained(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		basePath, path, want, not string
	}{
		{"", "/v1/transcripts", "-base-path /v1", ""},
		{"", "/v2/users/me", "-base-path /v2", ""},
		{"", "/nope", "no operation at", "-base-path"},
		{"/v1", "/transcripts", "every path begins with the base path /v1", "-base-path"},
	} {
		s := scribetest.NewTestServer(t, scribetest.WithBasePath(tc.basePath))
		root := strings.TrimSuffix(s.URL(), tc.basePath)
		resp, err := http.Get(root + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Code, Detail string }
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusNotFound || p.Code != "not_found" ||
			!strings.Contains(p.Detail, tc.want) || (tc.not != "" && strings.Contains(p.Detail, tc.not)) {
			t.Errorf("base path %q, GET %s: %d %+v (%v); want 404 not_found saying %q", tc.basePath, tc.path, resp.StatusCode, p, err, tc.want)
		}
	}
}
