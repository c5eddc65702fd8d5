package scribetest_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

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
	s := scribetest.NewTestServer(f, scribetest.WithFixtures(scribetest.DemoFixtures()))
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
	s := scribetest.NewTestServer(f, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithBasePath("/v1"))
	doc := apitest.NewValidator(f).WithBasePath("/v1")
	key, err := auth.ParseSecretKey("ask_live_c2NyaWJlLWRlbW8tc2VjcmV0LWtleS1ETy1OT1QtVVNF")
	if err != nil {
		f.Fatal(err)
	}
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
			jwt, err := auth.Mint(key, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", time.Now())
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
