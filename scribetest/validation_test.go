package scribetest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/scribetest"
)

// TestNullInRequestBodies: null means neither "absent" nor "empty": it is a
// 400 validation_failed naming the member, except for crm_integration_id,
// the one request member the document declares nullable. For every body
// the server's verdict (2xx or 400) is the document's: a body
// api/openapi.yaml refuses is refused, and one it accepts is served.
func TestNullInRequestBodies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dev := e.devA.Key.Reveal()
	doc := apitest.NewValidator(t).WithBasePath("/v1")
	keys := fmt.Sprintf("/plugins/%d/secret_keys", e.plugin.ID)

	tests := []struct {
		path, body string
		status     int
		detail     string // the problem's detail begins so
	}{
		{"/plugins", `{"name": null}`, 400, "name: must be a string, not null"},
		{"/plugins", `{"name": "x", "description": null}`, 400, "description: must be a string, not null"},
		{"/plugins", `{"name": "x", "permissions": null}`, 400, "permissions: must be an object, not null"},
		{"/plugins", `{"name": "x", "permissions": {"user": null}}`, 400, "permissions.user: must be a string, not null"},
		{"/plugins", `{"name": "x", "permissions": {"user": "read", "transcript": null}}`, 400, "permissions.transcript: must be a string, not null"},
		{"/plugins", `{"name": "x", "logo_uri": null}`, 400, "logo_uri: must be a string, not null"},
		{"/plugins", `null`, 400, "the request body must be a JSON object"},
		{"/plugins", `{"name": "x", "crm_integration_id": null}`, 200, ""},
		{"/plugins", `{"name": "x", "crm_integration_id": 12}`, 200, ""},
		{"/plugins", `{"name": "x", "description": "", "permissions": {"user": "none"}, "logo_uri": ""}`, 200, ""},
		{"/plugins", `{"name": "x", "logo_uri": "https://}"}`, 400, "logo_uri:"},
		{"/plugins", `{"name": "x", "logo_uri": "https://[::1"}`, 400, "logo_uri:"},
		{"/plugins", `{"name": "x", "logo_uri": "https://user:pw@cdn.example/logo.png"}`, 400, "logo_uri:"},
		{"/plugins", `{"name": "x", "logo_uri": "https://[::1]:8443/logo.png"}`, 200, ""},
		{keys, `{"description": null}`, 400, "description: must be a string, not null"},
		{keys, `{"description": "rotation"}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.body, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/v1"+tt.path, strings.NewReader(tt.body))
			r.Header.Set("Authorization", "Bearer "+dev)
			r.Header.Set("Content-Type", "application/json")
			docAccepts := doc.ValidateRequest(r) == nil
			if docAccepts != (tt.status == 200) {
				t.Errorf("api/openapi.yaml accepts the body: %v; the test expects the server to answer %d: they must agree", docAccepts, tt.status)
			}

			resp, body := e.do(t, req{method: http.MethodPost, path: tt.path, token: dev, body: tt.body})
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			if tt.status != 200 {
				p := problemOf(t, resp, body)
				if p.Code != scribe.CodeValidationFailed || !strings.HasPrefix(p.Detail, tt.detail) {
					t.Errorf("problem %q %q, want validation_failed beginning %q", p.Code, p.Detail, tt.detail)
				}
			}
		})
	}
}

// TestFixtureNulls: fixtures follow the same rule as request bodies: null
// only where the resource can be null (crm_integration_id, deleted_on).
func TestFixtureNulls(t *testing.T) {
	t.Parallel()
	const dev = `{"id": 7, "developer_key": "dk_live_x"}`
	tests := []struct{ doc, want string }{
		{`{"users": [{"id": 1, "first_name": null}]}`, "fixtures: users[0].first_name: must be a string, not null"},
		{`{"users": [{"id": 1, "email_address": null}]}`, "fixtures: users[0].email_address: must be a string, not null"},
		{`{"users": [null]}`, "fixtures: users[0]: must be an object, not null"},
		{`{"users": null}`, "fixtures: users: must be an array, not null"},
		{`{"users": [` + dev + `], "plugins": [{"user_id": 7, "name": "P", "permissions": {"user": null}}]}`, "fixtures: plugins[0].permissions.user: must be a string, not null"},
		{`{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "metadata": null}]}`, "fixtures: transcripts[0].metadata: must be an object, not null"},
		{`{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "created_on": null}]}`, "fixtures: transcripts[0].created_on: must be an RFC 3339 timestamp string, not null"},
	}
	for _, tt := range tests {
		s := scribetest.NewTestServer(t)
		if _, err := s.LoadFixtures(strings.NewReader(tt.doc)); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.doc, err, tt.want)
		}
	}
	// The nullable members, and null among metadata's free values, load.
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(`{"users": [` + dev + `, {"id": 8}],
		"plugins": [{"id": 100, "user_id": 7, "name": "P", "crm_integration_id": null}],
		"installations": [{"plugin_id": 100, "user_id": 8, "deleted_on": null}],
		"transcripts": [{"user_id": 8, "metadata": {"note": null}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if fx.Plugins[0].CRMIntegrationID != nil || fx.Installations[0].DeletedOn != nil || string(fx.Transcripts[0].Metadata["note"]) != "null" {
		t.Errorf("nullable members loaded as %v, %v, metadata %s", fx.Plugins[0].CRMIntegrationID, fx.Installations[0].DeletedOn, fx.Transcripts[0].Metadata["note"])
	}
}

// TestEmailAddressAgreesWithTheDocument: email_address is format: email in
// api/openapi.yaml. For every sample, a fixture (and CreateUser) accepts it
// exactly when the document accepts it in a response: the server never
// holds an address it could not serve, and refuses none it could. An
// omitted address is generated, and passes too.
func TestEmailAddressAgreesWithTheDocument(t *testing.T) {
	t.Parallel()
	doc := apitest.NewValidator(t)
	docAccepts := func(email string) bool {
		r := httptest.NewRequest(http.MethodGet, "/users/me", nil)
		r.Header.Set("Authorization", "Bearer x.y.z")
		resp := &http.Response{StatusCode: 200, Header: http.Header{
			"Content-Type": {"application/json"}, "Request-Id": {"req_1"},
			"Ratelimit-Limit": {"1000"}, "Ratelimit-Remaining": {"999"}, "Ratelimit-Reset": {"30"},
		}, Body: io.NopCloser(strings.NewReader(""))}
		body := fmt.Sprintf(`{"id": 8, "first_name": "G", "last_name": "H", "email_address": %q}`, email)
		return doc.ValidateResponse(r, resp, []byte(body)) == nil
	}
	if !docAccepts("grace@example.com") {
		t.Fatal("the document refuses a plain address: the probe response is malformed")
	}

	tests := []struct {
		email string
		ok    bool
	}{
		{"grace@example.com", true},
		{"first.last+tag@mail.example.org", true},
		{"o'brien@example.ie", true},
		{"", false},
		{"garbage", false},
		{"grace@", false},
		{"@example.com", false},
		{"Grace <grace@example.com>", false},
		{"<grace@example.com>", false},
		{"grace@example.com ", false},
		{"two@at@example.com", false},
		{"grace hopper@example.com", false},
	}
	for _, tt := range tests {
		if got := docAccepts(tt.email); got != tt.ok {
			t.Errorf("the document accepts %q: %v, the table says %v", tt.email, got, tt.ok)
		}
		s := scribetest.NewTestServer(t)
		_, err := s.LoadFixtures(strings.NewReader(fmt.Sprintf(`{"users": [{"id": 8, "email_address": %q}]}`, tt.email)))
		if (err == nil) != tt.ok {
			t.Errorf("fixture with email_address %q: error %v, want accepted %v", tt.email, err, tt.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "fixtures: users[0].email_address: must be an e-mail address") {
			t.Errorf("fixture with email_address %q: error %q does not name the field", tt.email, err)
		}
		if tt.email == "" {
			continue // CreateUser takes "" for "generate one"
		}
		_, err = s.CreateUser(scribe.User{EmailAddress: tt.email})
		if (err == nil) != tt.ok {
			t.Errorf("CreateUser with EmailAddress %q: error %v, want accepted %v", tt.email, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "CreateUser: EmailAddress must be an e-mail address") {
			t.Errorf("CreateUser with EmailAddress %q: error %q does not name the field", tt.email, err)
		}
	}

	// An omitted address is generated from the id, in fixtures and seeding.
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(`{"users": [{"id": 8}, {}]}`))
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(scribe.User{})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []scribe.User{fx.Users[0], fx.Users[1], u} {
		if want := fmt.Sprintf("user%d@example.com", got.ID); got.EmailAddress != want || !docAccepts(got.EmailAddress) {
			t.Errorf("user %d has the generated address %q, want %q, which the document accepts", got.ID, got.EmailAddress, want)
		}
	}
}

// TestFixturesResultSharesNothingWithTheServer: the transcripts LoadFixtures
// returns are copies of their own; changing one's metadata changes nothing
// on the server.
func TestFixturesResultSharesNothingWithTheServer(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(`{"users": [{"id": 3}], "transcripts": [{"user_id": 3, "metadata": {"a": 1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	mine := fx.Transcripts[0]
	mine.Metadata["b"] = []byte("2")
	delete(mine.Metadata, "a")
	got := s.Transcripts(3)[0].Metadata
	if len(got) != 1 || string(got["a"]) != "1" {
		t.Errorf("the server's metadata is %v after the caller changed its copy, want only a=1", got)
	}
}
