package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records what the harness reports instead of
// failing the test, so the tests can assert on it.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

func (r *recorder) reports() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func transcript() map[string]any {
	return map[string]any{
		"id": 1, "headline": "Weekly sync", "text": "Ada opened the meeting.", "type": "meeting",
		"created_on": "2026-11-21T09:30:00Z", "metadata": map[string]any{"source": "app"},
		"user":  map[string]any{"id": 8, "first_name": "Grace", "last_name": "Hopper"},
		"job":   map[string]any{"id": 1, "lines": 3},
		"audio": map[string]any{"id": 1, "length_in_seconds": 42, "created_on": "2026-11-21T09:29:00Z"},
	}
}

func transcriptList(items ...map[string]any) map[string]any {
	if items == nil {
		items = []map[string]any{} // "data": [], never null
	}
	return map[string]any{"has_more": false, "total_count": len(items), "data": items}
}

func plugin() map[string]any {
	return map[string]any{
		"id": 100, "name": "CRM sync", "description": "", "permissions": map[string]any{"user": "read", "transcript": "none"},
		"published": false, "disabled": false, "crm_integration_id": nil, "logo_uri": "", "user_id": 7,
		"created_on": "2026-11-21T09:30:00Z", "updated_on": "2026-11-21T09:30:00Z",
	}
}

func problem(status int, code, requestID string) map[string]any {
	return map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": status,
		"detail": "", "code": code, "request_id": requestID}
}

// response is what the test server answers.
type response struct {
	status int
	header map[string]string
	body   any // marshalled to JSON unless a string
}

// okHeaders are the headers every 2xx answer carries.
func okHeaders(extra ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/json", "Request-Id": "req_1",
		"RateLimit-Limit": "100", "RateLimit-Remaining": "99", "RateLimit-Reset": "60"}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			delete(h, extra[i])
		} else {
			h[extra[i]] = extra[i+1]
		}
	}
	return h
}

func problemHeaders(extra ...string) map[string]string {
	h := okHeaders(extra...)
	h["Content-Type"] = "application/problem+json"
	return h
}

func (r response) serve(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(r.status)
	switch b := r.body.(type) {
	case string:
		_, _ = io.WriteString(w, b)
	case nil:
	default:
		_ = json.NewEncoder(w).Encode(b)
	}
}

// request is what the test client sends.
type request struct {
	method, path string
	header       map[string]string
	body         string
	allowInvalid bool
	basePath     string // given to Validator.WithBasePath when set
}

func (q request) send(t *testing.T, client *http.Client, base string) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if q.body != "" {
		body = strings.NewReader(q.body)
	}
	method := q.method
	if method == "" {
		method = http.MethodGet
	}
	ctx := context.Background()
	if q.allowInvalid {
		ctx = AllowInvalidRequest(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+q.path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer token")
	if q.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range q.header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// roundTrip sends q through a validating Transport to a server answering r
// and returns what the harness reported.
func roundTrip(t *testing.T, q request, r response) []string {
	t.Helper()
	rec := &recorder{TB: t}
	v := NewValidator(rec)
	if q.basePath != "" {
		v = v.WithBasePath(q.basePath)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { r.serve(w) }))
	defer srv.Close()
	q.send(t, &http.Client{Transport: v.Transport(nil)}, srv.URL)
	return rec.reports()
}

func TestTransport(t *testing.T) {
	t.Parallel()
	missingHeadline := transcript()
	delete(missingHeadline, "headline")
	stringID := transcript()
	stringID["id"] = "1"
	extraField := transcript()
	extraField["secret_hash"] = "x"
	localTime := transcript()
	localTime["created_on"] = "2026-11-21T10:30:00+01:00"
	nullText := transcript()
	nullText["text"] = nil
	badPermission := plugin()
	badPermission["permissions"] = map[string]any{"user": "write", "transcript": "none"}
	withCRM := plugin()
	withCRM["crm_integration_id"] = 12

	list := request{path: "/transcripts"}
	cases := []struct {
		name string
		req  request
		resp response
		want []string // substrings, one per expected report, in order; none means conforming
	}{
		{name: "a conforming transcript list passes",
			req: list, resp: response{200, okHeaders(), transcriptList(transcript())}},
		{name: "a base path in front of the contract's paths is skipped",
			req: request{path: "/api/v1/transcripts?limit=100&after_id=0"}, resp: response{200, okHeaders(), transcriptList(transcript())}},
		{name: "a content type with parameters is accepted",
			req: list, resp: response{200, okHeaders("Content-Type", "application/json; charset=utf-8"), transcriptList()}},
		{name: "a nullable field may be set",
			req: request{path: "/plugins/100"}, resp: response{200, okHeaders(), withCRM}},
		{name: "a missing required field fails",
			req: list, resp: response{200, okHeaders(), transcriptList(missingHeadline)},
			want: []string{`GET /transcripts -> 200 (listTranscripts): the response does not conform`, `"headline" is missing`}},
		{name: "a field of the wrong type fails",
			req: list, resp: response{200, okHeaders(), transcriptList(stringID)},
			want: []string{`at "/data/0/id": value must be an integer`}},
		{name: "null where the contract does not allow it fails",
			req: list, resp: response{200, okHeaders(), transcriptList(nullText)},
			want: []string{`/data/0/text`}},
		{name: "a field the contract does not name fails",
			req: list, resp: response{200, okHeaders(), transcriptList(extraField)},
			want: []string{`"secret_hash" is unsupported`}},
		{name: "a timestamp not in UTC fails",
			req: list, resp: response{200, okHeaders(), transcriptList(localTime)},
			want: []string{`/data/0/created_on`}},
		{name: "a value outside an enum fails",
			req: request{path: "/plugins/100"}, resp: response{200, okHeaders(), badPermission},
			want: []string{`/permissions/user`}},
		{name: "a status the operation does not declare fails",
			req: list, resp: response{http.StatusTeapot, problemHeaders(), problem(418, "teapot", "req_1")},
			want: []string{`-> 418 (listTranscripts)`, `status 418 is not declared`}},
		{name: "404 is not declared for a list without a path id",
			req: list, resp: response{404, problemHeaders(), problem(404, "not_found", "req_1")},
			want: []string{`status 404 is not declared`}},
		{name: "an error without Request-Id fails",
			req: request{path: "/transcripts/5"}, resp: response{404, problemHeaders("Request-Id", ""), problem(404, "not_found", "req_1")},
			want: []string{`-> 404 (getTranscript)`, `"Request-Id" missing`}},
		{name: "a success without Request-Id fails",
			req: list, resp: response{200, okHeaders("Request-Id", ""), transcriptList()},
			want: []string{`"Request-Id" missing`}},
		{name: "a success without the rate limit headers fails",
			req: list, resp: response{200, okHeaders("RateLimit-Remaining", ""), transcriptList()},
			want: []string{`"RateLimit-Remaining" missing`}},
		{name: "a conforming problem passes",
			req: request{path: "/transcripts/5"}, resp: response{404, problemHeaders(), problem(404, "not_found", "req_1")}},
		{name: "an error that is not problem+json fails",
			req: request{path: "/transcripts/5"}, resp: response{404, okHeaders(), problem(404, "not_found", "req_1")},
			want: []string{`-> 404`, `application/json`}},
		{name: "a problem whose status differs from the response's fails",
			req: request{path: "/transcripts/5"}, resp: response{404, problemHeaders(), problem(400, "not_found", "req_1")},
			want: []string{`/status`}},
		{name: "a problem with a code its status does not have fails",
			req: request{path: "/transcripts/5"}, resp: response{404, problemHeaders(), problem(404, "permission_denied", "req_1")},
			want: []string{`/code`}},
		{name: "a problem whose request_id differs from Request-Id fails",
			req: request{path: "/transcripts/5"}, resp: response{404, problemHeaders(), problem(404, "not_found", "req_2")},
			want: []string{`request_id "req_2" differs from the Request-Id header "req_1"`}},
		{name: "401 without WWW-Authenticate fails",
			req: list, resp: response{401, problemHeaders(), problem(401, "invalid_token", "req_1")},
			want: []string{`"WWW-Authenticate" missing`}},
		{name: "401 with a Bearer challenge passes",
			req: list, resp: response{401, problemHeaders("WWW-Authenticate", `Bearer error="invalid_token"`), problem(401, "invalid_token", "req_1")}},
		{name: "429 without Retry-After fails",
			req: list, resp: response{429, problemHeaders(), problem(429, "rate_limited", "req_1")},
			want: []string{`"Retry-After" missing`}},
		{name: "429 with Retry-After passes",
			req: list, resp: response{429, problemHeaders("Retry-After", "3"), problem(429, "rate_limited", "req_1")}},
		{name: "a body that is not JSON fails",
			req: list, resp: response{200, okHeaders(), "<html>"},
			want: []string{`failed to decode response body`}},

		{name: "a request without Authorization fails",
			req:  request{path: "/transcripts", header: map[string]string{"Authorization": ""}},
			resp: response{200, okHeaders(), transcriptList()},
			want: []string{`the request does not conform`, `no Authorization header`}},
		{name: "a request with another scheme than Bearer fails",
			req:  request{path: "/plugins", header: map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}},
			resp: response{200, okHeaders(), map[string]any{"has_more": false, "total_count": 0, "data": []any{}}},
			want: []string{`not of the form "Bearer <token>"`}},
		{name: "a limit out of range fails",
			req: request{path: "/transcripts?limit=101"}, resp: response{200, okHeaders(), transcriptList()},
			want: []string{`parameter "limit" in query`}},
		{name: "a negative after_id fails",
			req: request{path: "/transcripts?after_id=-1"}, resp: response{200, okHeaders(), transcriptList()},
			want: []string{`parameter "after_id" in query`}},
		{name: "a path id that is not positive fails",
			req: request{path: "/plugins/0"}, resp: response{400, problemHeaders(), problem(400, "invalid_parameter", "req_1")},
			want: []string{`parameter "id" in path`}},
		{name: "an unknown path fails",
			req: request{path: "/plugins/5/transcripts"}, resp: response{404, problemHeaders(), problem(404, "not_found", "req_1")},
			want: []string{`(no operation): the request does not conform`, `no operation GET /plugins/5/transcripts`}},

		{name: "a deliberately invalid request refused with a conforming 400 passes",
			req:  request{path: "/transcripts?limit=0", allowInvalid: true},
			resp: response{400, problemHeaders(), problem(400, "invalid_parameter", "req_1")}},
		{name: "a deliberately missing token refused with 401 passes",
			req:  request{path: "/transcripts", header: map[string]string{"Authorization": ""}, allowInvalid: true},
			resp: response{401, problemHeaders("WWW-Authenticate", "Bearer"), problem(401, "missing_token", "req_1")}},
		{name: "a deliberately invalid request answered 2xx fails",
			req:  request{path: "/transcripts?limit=0", allowInvalid: true},
			resp: response{200, okHeaders(), transcriptList()},
			want: []string{`the service accepted a request that api/openapi.yaml forbids`}},
		{name: "an unknown path answered with a conforming 404 passes",
			req:  request{path: "/v1/nope", allowInvalid: true},
			resp: response{404, problemHeaders(), problem(404, "not_found", "req_1")}},
		{name: "an unknown path answered 401 fails: routing comes first",
			req:  request{path: "/v1/nope", allowInvalid: true},
			resp: response{401, problemHeaders("WWW-Authenticate", "Bearer"), problem(401, "invalid_token", "req_1")},
			want: []string{`status 401 is not declared`}},
		{name: "a trailing slash names no operation",
			req:  request{path: "/v1/transcripts/", allowInvalid: true},
			resp: response{200, okHeaders(), transcriptList()},
			want: []string{`(no operation)`, `status 200 is not declared`}},
		{name: "with a base path, a path below it passes",
			req:  request{path: "/v1/transcripts", basePath: "/v1/"},
			resp: response{200, okHeaders(), transcriptList()}},
		{name: "with a base path, a path outside it names no operation",
			req:  request{path: "/transcripts", basePath: "/v1", allowInvalid: true},
			resp: response{200, okHeaders(), transcriptList()},
			want: []string{`(no operation)`, `status 200 is not declared`}},
		{name: "with a base path, a path outside it answered 404 passes",
			req:  request{path: "/v10/transcripts", basePath: "/v1", allowInvalid: true},
			resp: response{404, problemHeaders(), problem(404, "not_found", "req_1")}},
		{name: "with a base path, a 405 is still told from a 404",
			req:  request{method: http.MethodPut, path: "/v1/transcripts/1", basePath: "/v1", allowInvalid: true},
			resp: response{405, problemHeaders("Allow", "GET, HEAD"), problem(405, "method_not_allowed", "req_1")}},
		{name: "an unsupported method answered with 405 and Allow passes",
			req:  request{method: http.MethodDelete, path: "/v1/plugins/5", allowInvalid: true},
			resp: response{405, problemHeaders("Allow", "GET"), problem(405, "method_not_allowed", "req_1")}},
		{name: "an unsupported method answered 404 fails",
			req:  request{method: http.MethodDelete, path: "/plugins/5", allowInvalid: true},
			resp: response{404, problemHeaders(), problem(404, "not_found", "req_1")},
			want: []string{`status 404 is not declared`}},
		{name: "405 without Allow fails",
			req:  request{method: http.MethodPut, path: "/plugins", allowInvalid: true},
			resp: response{405, problemHeaders(), problem(405, "method_not_allowed", "req_1")},
			want: []string{`"Allow" missing`}},

		{name: "a conforming create passes",
			req: request{method: http.MethodPost, path: "/plugins", body: `{"name":"CRM sync","permissions":{"user":"read"}}`,
				header: map[string]string{"Idempotency-Key": "k1"}},
			resp: response{200, okHeaders(), plugin()}},
		{name: "a create body with an unknown member fails",
			req:  request{method: http.MethodPost, path: "/plugins", body: `{"name":"CRM sync","permision":{}}`},
			resp: response{200, okHeaders(), plugin()},
			want: []string{`request body has an error`}},
		{name: "a create body without a name fails",
			req:  request{method: http.MethodPost, path: "/plugins", body: `{"description":"x"}`},
			resp: response{200, okHeaders(), plugin()},
			want: []string{`"name" is missing`}},
		{name: "an Idempotency-Key over 255 characters fails",
			req: request{method: http.MethodPost, path: "/plugins", body: `{"name":"x"}`,
				header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}},
			resp: response{200, okHeaders(), plugin()},
			want: []string{`parameter "Idempotency-Key" in header`}},
		{name: "a secret key created without a body passes",
			req: request{method: http.MethodPost, path: "/plugins/100/secret_keys"},
			resp: response{200, okHeaders(), map[string]any{"id": 1, "description": "", "plugin_id": 100,
				"value":      "ask_live_" + strings.Repeat("A", 43),
				"created_on": "2026-11-21T09:30:00Z", "updated_on": "2026-11-21T09:30:00Z"}}},
		{name: "201 where the create declares 200 fails",
			req:  request{method: http.MethodPost, path: "/plugins", body: `{"name":"x"}`},
			resp: response{201, okHeaders(), plugin()},
			want: []string{`status 201 is not declared`}},
		{name: "409 on a create passes",
			req:  request{method: http.MethodPost, path: "/plugins", body: `{"name":"x"}`, header: map[string]string{"Idempotency-Key": "k1"}},
			resp: response{409, problemHeaders(), problem(409, "idempotency_key_reused", "req_1")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := roundTrip(t, tc.req, tc.resp)
			joined := strings.Join(got, "\n")
			if len(tc.want) == 0 && len(got) > 0 {
				t.Fatalf("the harness reported a conforming exchange:\n%s", joined)
			}
			if len(tc.want) > 0 && len(got) == 0 {
				t.Fatalf("the harness reported nothing; want a report containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("the reports do not mention %q:\n%s", w, joined)
				}
			}
		})
	}
}

// A secret in a non-conforming response must not reach the test log.
func TestTransportRedactsSecrets(t *testing.T) {
	t.Parallel()
	key := map[string]any{"id": 1, "description": "", "plugin_id": 100, "value": "ask_live_tooShortToBeReal",
		"created_on": "2026-11-21T09:30:00Z", "updated_on": "2026-11-21T09:30:00Z"}
	got := roundTrip(t, request{method: http.MethodPost, path: "/plugins/100/secret_keys"}, response{200, okHeaders(), key})
	joined := strings.Join(got, "\n")
	if !strings.Contains(joined, "/value") {
		t.Fatalf("the short secret key was not reported:\n%s", joined)
	}
	if strings.Contains(joined, "tooShortToBeReal") {
		t.Errorf("the report shows the secret material:\n%s", joined)
	}
}

// The caller reads the response body, and the server the request body, as if
// the harness were not there.
func TestTransportRestoresBodies(t *testing.T) {
	t.Parallel()
	const sent = `{"name":"CRM sync"}`
	var received string
	want := plugin()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received = string(b)
		response{200, okHeaders(), want}.serve(w)
	}))
	defer srv.Close()
	rec := &recorder{TB: t}
	client := &http.Client{Transport: NewValidator(rec).Transport(srv.Client().Transport)}
	_, body := request{method: http.MethodPost, path: "/plugins", body: sent}.send(t, client, srv.URL)

	if received != sent {
		t.Errorf("the server received %q, want %q", received, sent)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("the caller cannot decode the response body %q: %v", body, err)
	}
	if got["name"] != want["name"] || len(got) != len(want) {
		t.Errorf("the caller read %v, want %v", got, want)
	}
	if r := rec.reports(); len(r) > 0 {
		t.Errorf("unexpected reports: %q", r)
	}
}

// A server wrapped in Handler is held to the contract whatever client calls it.
func TestHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		req  request
		resp response
		want string // substring of the only report; "" for none
	}{
		{name: "a conforming answer passes",
			req: request{path: "/v1/transcripts"}, resp: response{200, okHeaders(), transcriptList(transcript())}},
		{name: "a non-conforming answer fails",
			req: request{path: "/v1/transcripts"}, resp: response{200, okHeaders("Request-Id", ""), transcriptList()},
			want: `"Request-Id" missing`},
		{name: "an invalid request refused with 400 passes, unmarked",
			req: request{path: "/v1/transcripts?limit=abc"}, resp: response{400, problemHeaders(), problem(400, "invalid_parameter", "req_1")}},
		{name: "an invalid request answered 2xx fails",
			req: request{path: "/v1/transcripts", header: map[string]string{"Authorization": ""}}, resp: response{200, okHeaders(), transcriptList()},
			want: `the service accepted a request that api/openapi.yaml forbids`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			v := NewValidator(rec)
			srv := httptest.NewServer(v.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { tc.resp.serve(w) })))
			defer srv.Close()
			resp, _ := tc.req.send(t, srv.Client(), srv.URL)
			if resp.StatusCode != tc.resp.status {
				t.Errorf("the client got status %d through the Handler, want %d", resp.StatusCode, tc.resp.status)
			}
			got := rec.reports()
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("unexpected reports: %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("reports = %q, want one containing %q", got, tc.want)
			}
		})
	}
}

func TestValidateResponse(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	req := httptest.NewRequest(http.MethodGet, "/users/me", nil)
	user := `{"id":8,"first_name":"Grace","last_name":"Hopper","email_address":"grace@example.com"}`
	resp := &http.Response{StatusCode: 200, Header: http.Header{}}
	for k, val := range okHeaders() {
		resp.Header.Set(k, val)
	}
	if err := v.ValidateResponse(req, resp, []byte(user)); err != nil {
		t.Errorf("a conforming user: %v", err)
	}
	bad := strings.Replace(user, "grace@example.com", "not an address", 1)
	if err := v.ValidateResponse(req, resp, []byte(bad)); err == nil || !strings.Contains(err.Error(), "/email_address") {
		t.Errorf("a user with a malformed email_address: err = %v, want one naming /email_address", err)
	}
}

func TestValidateRequest(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	const body = `{"name":"x","crm_integration_id":null}`
	req := httptest.NewRequest(http.MethodPost, "/plugins", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer dk_live_x")
	req.Header.Set("Content-Type", "application/json")
	if err := v.ValidateRequest(req); err != nil {
		t.Errorf("a conforming create: %v", err)
	}
	if b, _ := io.ReadAll(req.Body); string(b) != body {
		t.Errorf("the body after validation is %q, want %q", b, body)
	}
	req = httptest.NewRequest(http.MethodPost, "/plugins", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer dk_live_x")
	req.Header.Set("Content-Type", "text/plain")
	if err := v.ValidateRequest(req); err == nil {
		t.Error("a create with Content-Type text/plain passed")
	}
}

func TestValidateWebhook(t *testing.T) {
	t.Parallel()
	v := NewValidator(t)
	installation := map[string]any{"id": 1, "uuid": "0b6d8f5e-1c2a-4b3c-9d4e-5f6a7b8c9d0e", "plugin_id": 100, "user_id": 8,
		"first_name": "Grace", "last_name": "Hopper", "email_address": "grace@example.com",
		"created_on": "2026-11-21T09:30:00Z", "updated_on": "2026-11-21T09:30:00Z", "deleted_on": nil}
	event := func(typ string, data any) []byte {
		b, _ := json.Marshal(map[string]any{"id": "evt_2QbZ1y", "type": typ, "created_on": "2026-11-21T09:30:00Z",
			"plugin_id": 100, "plugin_installation_uuid": "0b6d8f5e-1c2a-4b3c-9d4e-5f6a7b8c9d0e", "data": data})
		return b
	}
	headers := map[string]string{"Content-Type": "application/json", "webhook-id": "evt_2QbZ1y",
		"webhook-timestamp": "1614265330", "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="}
	cases := []struct {
		name    string
		body    []byte
		without string // header left out
		want    string // substring of the error; "" for none
	}{
		{name: "installation.created passes", body: event("installation.created", installation)},
		{name: "transcript.updated passes", body: event("transcript.updated", transcript())},
		{name: "an unknown event type fails", body: event("plugin.renamed", installation), want: `"plugin.renamed" is not in the contract`},
		{name: "data of the wrong resource fails", body: event("transcript.created", installation), want: "does not conform"},
		{name: "a missing signature fails", body: event("installation.deleted", installation), without: "webhook-signature", want: "webhook-signature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(tc.body))
			for k, val := range maps.All(headers) {
				if k != tc.without {
					req.Header.Set(k, val)
				}
			}
			err := v.ValidateWebhook(req, tc.body)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("a conforming delivery: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
