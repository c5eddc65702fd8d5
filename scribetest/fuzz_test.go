package scribetest_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

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
