package scribetest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest"
)

// TestRules sends one request per contract rule and checks the status, the
// problem code and the headers the rule fixes. Every response also passes
// through the api/openapi.yaml validator.
func TestRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jwt := e.userToken(t)
	dev := e.devA.Key.Reveal()
	devB := e.devB.Key.Reveal()
	jwtNone := e.jwt(t, e.keyNone, e.instNone.UUID)
	jwtDisabled := e.jwt(t, e.keyDisabled, e.instDisabled.UUID)
	p := func(format string, args ...any) string { return fmt.Sprintf(format, args...) }

	tests := []struct {
		name   string
		req    req
		status int
		code   string            // "" for a success
		header map[string]string // headers the answer must carry
	}{
		// Routing.
		{"unknown path is a 404 problem", req{method: "GET", path: "/nope", token: jwt}, 404, scribe.CodeNotFound, nil},
		{"path outside the base path is a 404 problem", req{method: "GET", path: "/../transcripts", token: jwt}, 404, scribe.CodeNotFound, nil},
		{"trailing slash is another path", req{method: "GET", path: "/transcripts/", token: jwt}, 404, scribe.CodeNotFound, nil},
		{"wrong method is 405 with Allow", req{method: "DELETE", path: "/plugins", token: dev}, 405, scribe.CodeMethodNotAllowed, map[string]string{"Allow": "GET, HEAD, POST"}},
		{"POST-only path lists POST in Allow", req{method: "GET", path: p("/plugins/%d/secret_keys", e.plugin.ID), token: dev}, 405, scribe.CodeMethodNotAllowed, map[string]string{"Allow": "POST"}},
		{"405 comes before authentication", req{method: "PUT", path: "/transcripts/1"}, 405, scribe.CodeMethodNotAllowed, map[string]string{"Allow": "GET, HEAD"}},

		// Head limits (docs/errors.md, "Order of checks"): answered before authentication.
		{"a request target over 8 KiB is 414", req{method: "GET", path: "/transcripts?x=" + strings.Repeat("a", 8<<10), token: jwt}, 414, "uri_too_long", nil},
		{"header fields over 32 KiB are 431", req{method: "GET", path: "/transcripts", token: jwt, header: map[string]string{"X-Filler": strings.Repeat("a", 32<<10)}}, 431, "headers_too_large", nil},

		// Authentication (RFC 6750 challenges).
		{"no Authorization header", req{method: "GET", path: "/transcripts"}, 401, scribe.CodeMissingToken, map[string]string{"WWW-Authenticate": "Bearer"}},
		{"Basic scheme counts as no token", req{method: "GET", path: "/transcripts", header: map[string]string{"Authorization": "Basic YTpi"}}, 401, scribe.CodeMissingToken, map[string]string{"WWW-Authenticate": "Bearer"}},
		{"Bearer without a token", req{method: "GET", path: "/transcripts", header: map[string]string{"Authorization": "Bearer "}}, 401, scribe.CodeMissingToken, map[string]string{"WWW-Authenticate": "Bearer"}},
		{"unknown developer key", req{method: "GET", path: "/plugins", token: "dk_live_unknown"}, 401, scribe.CodeInvalidToken, map[string]string{"WWW-Authenticate": `Bearer error="invalid_token"`}},
		{"garbage token", req{method: "GET", path: "/transcripts", token: "not-a-token"}, 401, scribe.CodeInvalidToken, map[string]string{"WWW-Authenticate": `Bearer error="invalid_token"`}},
		{"scheme is case-insensitive", req{method: "GET", path: "/plugins", header: map[string]string{"Authorization": "bearer " + dev}}, 200, "", nil},

		// Token kinds.
		{"developer key on an installation operation", req{method: "GET", path: "/transcripts", token: dev}, 403, scribe.CodeWrongTokenKind, nil},
		{"developer key on /users/me", req{method: "GET", path: "/users/me", token: dev}, 403, scribe.CodeWrongTokenKind, nil},
		{"JWT on a developer operation", req{method: "GET", path: "/plugins", token: jwt}, 403, scribe.CodeWrongTokenKind, nil},
		{"JWT on a developer POST", req{method: "POST", path: "/plugins", token: jwt, body: `{"name":"x"}`}, 403, scribe.CodeWrongTokenKind, nil},

		// Permissions and disabled plugins.
		{"transcript none forbids the list", req{method: "GET", path: "/transcripts", token: jwtNone}, 403, scribe.CodePermissionDenied, nil},
		{"transcript none forbids a fetch", req{method: "GET", path: p("/transcripts/%d", e.transcripts[0].ID), token: jwtNone}, 403, scribe.CodePermissionDenied, nil},
		{"user none forbids /users/me", req{method: "GET", path: "/users/me", token: jwtNone}, 403, scribe.CodePermissionDenied, nil},
		{"disabled plugin's JWT", req{method: "GET", path: "/transcripts", token: jwtDisabled}, 403, scribe.CodePluginDisabled, nil},
		{"disabled plugin still visible to its developer", req{method: "GET", path: p("/plugins/%d", e.pluginDisabled.ID), token: dev}, 200, "", nil},

		// Scoping: other people's resources are 404, like absent ones.
		{"own transcript", req{method: "GET", path: p("/transcripts/%d", e.transcripts[1].ID), token: jwt}, 200, "", nil},
		{"another user's transcript", req{method: "GET", path: p("/transcripts/%d", e.otherTranscript.ID), token: jwt}, 404, scribe.CodeNotFound, nil},
		{"absent transcript", req{method: "GET", path: "/transcripts/999999", token: jwt}, 404, scribe.CodeNotFound, nil},
		{"another developer's plugin", req{method: "GET", path: p("/plugins/%d", e.pluginB.ID), token: dev}, 404, scribe.CodeNotFound, nil},
		{"another developer's installations", req{method: "GET", path: p("/plugins/%d/installations", e.pluginB.ID), token: dev}, 404, scribe.CodeNotFound, nil},
		{"another developer's webhooks", req{method: "GET", path: p("/plugins/%d/webhooks", e.plugin.ID), token: devB}, 404, scribe.CodeNotFound, nil},
		{"secret key for another developer's plugin", req{method: "POST", path: p("/plugins/%d/secret_keys", e.pluginB.ID), token: dev}, 404, scribe.CodeNotFound, nil},

		// Path ids.
		{"id not an integer", req{method: "GET", path: "/transcripts/abc", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"id zero", req{method: "GET", path: "/plugins/0", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"id negative", req{method: "GET", path: "/plugins/-1", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"id beyond int64", req{method: "GET", path: "/plugins/9223372036854775808", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"transcript id beyond int64", req{method: "GET", path: "/transcripts/9223372036854775808", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"secret key path id beyond int64", req{method: "POST", path: "/plugins/99999999999999999999/secret_keys", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"id at 2^53-1 is just absent", req{method: "GET", path: "/plugins/9007199254740991", token: dev}, 404, scribe.CodeNotFound, nil},
		{"transcript id at 2^53-1 is just absent", req{method: "GET", path: "/transcripts/9007199254740991", token: jwt}, 404, scribe.CodeNotFound, nil},
		{"id above 2^53-1, the document's maximum", req{method: "GET", path: "/plugins/9007199254740992", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"id at int64's maximum", req{method: "GET", path: "/transcripts/9223372036854775807", token: jwt}, 400, scribe.CodeInvalidParameter, nil},

		// Pagination parameters.
		{"limit 1", req{method: "GET", path: "/transcripts?limit=1", token: jwt}, 200, "", nil},
		{"limit 100", req{method: "GET", path: "/transcripts?limit=100", token: jwt}, 200, "", nil},
		{"limit 0", req{method: "GET", path: "/transcripts?limit=0", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"limit 101", req{method: "GET", path: "/plugins?limit=101", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"limit not an integer", req{method: "GET", path: "/transcripts?limit=ten", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"limit with a sign", req{method: "GET", path: "/transcripts?limit=+5", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"limit empty", req{method: "GET", path: "/transcripts?limit=", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"limit repeated", req{method: "GET", path: "/transcripts?limit=1&limit=2", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"after_id negative", req{method: "GET", path: "/transcripts?after_id=-1", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"after_id fractional", req{method: "GET", path: "/transcripts?after_id=1.5", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"after_id 0", req{method: "GET", path: "/transcripts?after_id=0", token: jwt}, 200, "", nil},
		{"after_id at 2^53-1", req{method: "GET", path: "/plugins?after_id=9007199254740991", token: dev}, 200, "", nil},
		{"after_id above 2^53-1, the document's maximum", req{method: "GET", path: "/plugins?after_id=9007199254740992", token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"after_id beyond int64", req{method: "GET", path: "/transcripts?after_id=9223372036854775808", token: jwt}, 400, scribe.CodeInvalidParameter, nil},
		{"after_id far beyond int64", req{method: "GET", path: "/plugins?after_id=" + strings.Repeat("9", 40), token: dev}, 400, scribe.CodeInvalidParameter, nil},
		{"unknown query parameter is ignored", req{method: "GET", path: "/users/me?verbose=1", token: jwt}, 200, "", nil},

		// Bodies.
		{"create a plugin", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"New"}`}, 200, "", nil},
		{"Content-Type text/plain", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x"}`, header: map[string]string{"Content-Type": "text/plain"}}, 415, scribe.CodeUnsupportedMediaType, nil},
		{"body without Content-Type", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x"}`, header: map[string]string{"Content-Type": ""}}, 415, scribe.CodeUnsupportedMediaType, nil},
		{"charset other than utf-8", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x"}`, header: map[string]string{"Content-Type": "application/json; charset=latin1"}}, 415, scribe.CodeUnsupportedMediaType, nil},
		{"charset utf-8 is fine", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x"}`, header: map[string]string{"Content-Type": "application/json; charset=UTF-8"}}, 200, "", nil},
		{"body over 1 MiB", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","description":"` + strings.Repeat("a", 1<<20) + `"}`}, 413, scribe.CodeRequestTooLarge, nil},
		{"body not JSON", req{method: "POST", path: "/plugins", token: dev, body: `name=x`}, 400, scribe.CodeValidationFailed, nil},
		{"body a JSON array", req{method: "POST", path: "/plugins", token: dev, body: `[{"name":"x"}]`}, 400, scribe.CodeValidationFailed, nil},
		{"unknown member", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","colour":"red"}`}, 400, scribe.CodeValidationFailed, nil},
		{"unknown nested member", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","permissions":{"admin":"read"}}`}, 400, scribe.CodeValidationFailed, nil},
		{"member in another case", req{method: "POST", path: "/plugins", token: dev, body: `{"NAME":"x"}`}, 400, scribe.CodeValidationFailed, nil},
		{"trailing data", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x"} {"name":"y"}`}, 400, scribe.CodeValidationFailed, nil},
		{"name missing", req{method: "POST", path: "/plugins", token: dev, body: `{}`}, 400, scribe.CodeValidationFailed, nil},
		{"empty body is a missing name", req{method: "POST", path: "/plugins", token: dev, header: map[string]string{"Content-Type": "application/json"}}, 400, scribe.CodeValidationFailed, nil},
		{"name empty", req{method: "POST", path: "/plugins", token: dev, body: `{"name":""}`}, 400, scribe.CodeValidationFailed, nil},
		{"name of 100 characters", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"` + strings.Repeat("é", 100) + `"}`}, 200, "", nil},
		{"name of 101 characters", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"` + strings.Repeat("a", 101) + `"}`}, 400, scribe.CodeValidationFailed, nil},
		{"name of the wrong type", req{method: "POST", path: "/plugins", token: dev, body: `{"name":5}`}, 400, scribe.CodeValidationFailed, nil},
		{"permission not none or read", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","permissions":{"user":"write"}}`}, 400, scribe.CodeValidationFailed, nil},
		{"logo_uri not http", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","logo_uri":"ftp://x/y.png"}`}, 400, scribe.CodeValidationFailed, nil},
		{"crm_integration_id zero", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","crm_integration_id":0}`}, 400, scribe.CodeValidationFailed, nil},
		{"description over 1000 characters", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","description":"` + strings.Repeat("a", 1001) + `"}`}, 400, scribe.CodeValidationFailed, nil},
		{"secret key with an empty body", req{method: "POST", path: p("/plugins/%d/secret_keys", e.plugin.ID), token: dev}, 200, "", nil},
		{"secret key with a description", req{method: "POST", path: p("/plugins/%d/secret_keys", e.plugin.ID), token: dev, body: `{"description":"rotation"}`}, 200, "", nil},
		{"secret key with an unknown member", req{method: "POST", path: p("/plugins/%d/secret_keys", e.plugin.ID), token: dev, body: `{"value":"ask_live_mine"}`}, 400, scribe.CodeValidationFailed, nil},

		// Idempotency-Key limits.
		{"Idempotency-Key of 255 characters", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"k"}`, header: map[string]string{"Idempotency-Key": strings.Repeat("k", 255)}}, 200, "", nil},
		{"Idempotency-Key of 256 characters", req{method: "POST", path: "/plugins", token: dev, body: `{"name":"k"}`, header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}}, 400, scribe.CodeInvalidParameter, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.do(t, tt.req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			id := resp.Header.Get("Request-Id")
			if id == "" {
				t.Error("no Request-Id header")
			}
			for k, want := range tt.header {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if tt.code == "" {
				if resp.Header.Get("WWW-Authenticate") != "" {
					t.Errorf("a success carries WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
				}
				return
			}
			pr := problemOf(t, resp, body)
			want := wire.Problem{Type: "about:blank", Title: http.StatusText(tt.status), Status: tt.status, Code: tt.code, RequestID: id}
			if diff := cmp.Diff(want, pr, cmpopts.IgnoreFields(wire.Problem{}, "Detail")); diff != "" {
				t.Errorf("problem mismatch (-want +got):\n%s", diff)
			}
			if pr.Detail == "" {
				t.Error("problem has no detail")
			}
			if tt.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	}
}

// TestDetailNamesTheParameter: a 400 says which parameter or member is wrong.
func TestDetailNamesTheParameter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dev := e.devA.Key.Reveal()
	tests := []struct {
		req  req
		want string
	}{
		{req{method: "GET", path: "/plugins?limit=0", token: dev}, "limit:"},
		{req{method: "GET", path: "/plugins?after_id=x", token: dev}, "after_id:"},
		{req{method: "GET", path: "/plugins/x", token: dev}, "id:"},
		{req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","permissions":{"admin":"read"}}`}, "permissions.admin: unknown member"},
		{req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x","permissions":{"user":"write"}}`}, "permissions.user:"},
		{req{method: "POST", path: "/plugins", token: dev, body: `{"name":true}`}, "name: must be a string"},
		{req{method: "POST", path: "/plugins", token: dev, body: `{}`}, "name: is required"},
		{req{method: "POST", path: "/plugins", token: dev, body: `{"name":"x"}`, header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}}, "Idempotency-Key:"},
	}
	for _, tt := range tests {
		resp, body := e.do(t, tt.req)
		if p := problemOf(t, resp, body); !strings.HasPrefix(p.Detail, tt.want) {
			t.Errorf("%s %s: detail %q does not begin with %q", tt.req.method, tt.req.path, p.Detail, tt.want)
		}
	}
}

// TestResponses checks what the operations answer, whole.
func TestResponses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jwt := e.userToken(t)
	dev := e.devA.Key.Reveal()

	t.Run("GET /users/me is the installation's user", func(t *testing.T) {
		_, body := e.do(t, req{method: "GET", path: "/users/me", token: jwt})
		if diff := cmp.Diff(e.user, decode[scribe.User](t, body)); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("GET /transcripts/{id} is the seeded transcript", func(t *testing.T) {
		_, body := e.do(t, req{method: "GET", path: fmt.Sprintf("/transcripts/%d", e.transcripts[2].ID), token: jwt})
		got := decode[scribe.Transcript](t, body)
		if diff := cmp.Diff(e.transcripts[2], got); diff != "" {
			t.Error(diff)
		}
		if got.User != (scribe.TranscriptUser{ID: e.user.ID, FirstName: "Grace", LastName: "Hopper"}) {
			t.Errorf("user = %+v", got.User)
		}
	})
	t.Run("POST /plugins creates an unpublished, enabled plugin with none/none", func(t *testing.T) {
		resp, body := e.do(t, req{method: "POST", path: "/plugins", token: dev, body: `{"name":"Fresh","description":"d","logo_uri":"https://x.example/l.png"}`})
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		got := decode[scribe.Plugin](t, body)
		want := scribe.Plugin{
			ID: got.ID, Name: "Fresh", Description: "d", LogoURI: "https://x.example/l.png", UserID: e.devA.User.ID,
			Permissions: scribe.Permissions{User: scribe.PermissionNone, Transcript: scribe.PermissionNone},
			CreatedOn:   t0, UpdatedOn: t0,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Error(diff)
		}
		if got.ID <= e.pluginDisabled.ID {
			t.Errorf("id %d is not greater than every earlier plugin id", got.ID)
		}
		stored := e.s.Plugins()
		if diff := cmp.Diff(got, stored[len(stored)-1]); diff != "" {
			t.Errorf("the server's state differs from the answer: %s", diff)
		}
	})
	t.Run("POST /plugins/{id}/secret_keys returns a working ask_live_ key", func(t *testing.T) {
		_, body := e.do(t, req{method: "POST", path: fmt.Sprintf("/plugins/%d/secret_keys", e.plugin.ID), token: dev, body: `{"description":"rotation"}`})
		got := decode[struct {
			ID          int64  `json:"id"`
			Description string `json:"description"`
			Value       string `json:"value"`
			PluginID    int64  `json:"plugin_id"`
		}](t, body)
		if !strings.HasPrefix(got.Value, "ask_live_") || got.Description != "rotation" || got.PluginID != e.plugin.ID {
			t.Fatalf("unexpected key %+v", got)
		}
		keys := e.s.SecretKeys(e.plugin.ID)
		if len(keys) != 2 || keys[1].Value.Reveal() != got.Value {
			t.Fatalf("the plugin's keys are %v, want the old one and the new one", keys)
		}
	})
	t.Run("GET /plugins/{id}/webhooks shows the signing secret", func(t *testing.T) {
		hook, err := e.s.CreateWebhook(e.plugin.ID, "https://hooks.example/in")
		if err != nil {
			t.Fatal(err)
		}
		_, body := e.do(t, req{method: "GET", path: fmt.Sprintf("/plugins/%d/webhooks", e.plugin.ID), token: dev})
		got := decode[wire.List[struct {
			SigningSecret string `json:"signing_secret"`
			URI           string `json:"uri"`
		}]](t, body)
		if got.TotalCount != 1 || got.Data[0].SigningSecret != hook.SigningSecret.Reveal() || got.Data[0].URI != hook.URI {
			t.Errorf("webhooks = %+v", got)
		}
	})
	t.Run("GET /plugins/{id}/installations includes uninstalled ones", func(t *testing.T) {
		other, err := e.s.Install(e.plugin.ID, e.other.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(90)
		gone, err := e.s.Uninstall(other.UUID)
		if err != nil {
			t.Fatal(err)
		}
		_, body := e.do(t, req{method: "GET", path: fmt.Sprintf("/plugins/%d/installations", e.plugin.ID), token: dev})
		got := decode[wire.List[scribe.PluginInstallation]](t, body)
		want := wire.List[scribe.PluginInstallation]{TotalCount: 2, Data: []scribe.PluginInstallation{e.inst, gone}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Error(diff)
		}
		if gone.DeletedOn == nil || gone.FirstName != "Alan" {
			t.Errorf("uninstalled installation = %+v", gone)
		}
	})
}

// TestRequestIDOnEveryAnswer: every answer, success or problem, carries a
// distinct Request-Id, equal to the problem's request_id, and the request
// log records it.
func TestRequestIDOnEveryAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seen := map[string]bool{}
	for _, rq := range []req{
		{method: "GET", path: "/users/me", token: e.userToken(t)},
		{method: "GET", path: "/users/me"},
		{method: "PATCH", path: "/users/me"},
		{method: "GET", path: "/elsewhere"},
	} {
		resp, body := e.do(t, rq)
		id := resp.Header.Get("Request-Id")
		if id == "" || seen[id] {
			t.Fatalf("%s %s: Request-Id %q is empty or repeated", rq.method, rq.path, id)
		}
		seen[id] = true
		if resp.StatusCode >= 400 {
			if p := problemOf(t, resp, body); p.RequestID != id {
				t.Errorf("request_id %q differs from the header %q", p.RequestID, id)
			}
		}
	}
	log := e.s.Requests()
	if len(log) != 4 || e.s.RequestCount() != 4 {
		t.Fatalf("request log has %d entries (count %d), want 4", len(log), e.s.RequestCount())
	}
	for _, r := range log {
		if !seen[r.RequestID] {
			t.Errorf("logged request id %q was not answered", r.RequestID)
		}
	}
	if got := log[1]; got.Status != 401 || got.Code != scribe.CodeMissingToken || got.Path != "/v1/users/me" {
		t.Errorf("log entry = %+v", got)
	}
}

// TestBasePathIsOptional: without WithBasePath the operations sit at the root.
func TestBasePathIsOptional(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	d, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", s.URL()+"/plugins", nil)
	r.Header.Set("Authorization", "Bearer "+d.Key.Reveal())
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /plugins = %d, want 200", resp.StatusCode)
	}
}

// TestRequestLogRedactsCredentialsInTheURL: a client that puts a credential
// in the URL (a token in the query, a key in the path) does not get it into
// the request log or the fault log, which the admin API and the dashboard
// show: not when the request is served, and not when its URL is refused as
// too long, with the key at the edge of what the log keeps.
func TestRequestLogRedactsCredentialsInTheURL(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	if err := s.InjectFault(scribetest.Fault{Path: "/transcripts/{id}", Status: http.StatusServiceUnavailable}); err != nil {
		t.Fatal(err)
	}
	const key = "ask_live_c2VjcmV0LWluLWEtcXVlcnktc3RyaW5nLTAxMjM0NTY3"
	for _, url := range []string{
		s.URL() + "/transcripts/" + key + "?token=" + key,
		s.URL() + "/transcripts?after_id=" + strings.Repeat("a", 390) + key + strings.Repeat("b", 900_000),
	} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the request log holds %d requests, want 2", len(reqs))
	}
	if r := reqs[0]; strings.Contains(r.Path+r.Query, key) || !strings.Contains(r.Query, "token=ask_live_[REDACTED]") {
		t.Errorf("the request log keeps path %q and query %q; want the key redacted as ask_live_[REDACTED]", r.Path, r.Query)
	}
	if r := reqs[1]; r.Status != http.StatusRequestURITooLong || strings.Contains(r.Query, key[:20]) || !strings.Contains(r.Query, "ask_live_[REDACTED]") {
		t.Errorf("a 900 KB query with a key at byte 400 is logged as %d %.600q; want 414 and the key redacted as ask_live_[REDACTED]", r.Status, r.Query)
	}
	fired := s.FiredFaults()
	if len(fired) != 1 || strings.Contains(fired[0].Path, key) || !strings.Contains(fired[0].Path, "ask_live_[REDACTED]") {
		t.Errorf("the fault log holds %+v; want one fault whose path has the key redacted as ask_live_[REDACTED]", fired)
	}
}
