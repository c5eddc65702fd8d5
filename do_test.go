package scribe_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// TestDoAgainstReferenceServer protects Client.Do as the escape hatch for
// operations the SDK does not wrap: against the reference server, a GET and
// a POST go through two injected 503s with the client's credential, the
// POST with one Idempotency-Key on every attempt, creating one plugin; the
// answer decodes into out; and a POST whose retries run out names its key
// for IdempotencyKeyOf, which finishes it.
func TestDoAgainstReferenceServer(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	s := w.s
	ctx := t.Context()
	statuses := func(reqs []scribetest.Request) (out []int) {
		for _, r := range reqs {
			out = append(out, r.Status)
		}
		return out
	}

	inst := w.instClient(t, w.key.Key, w.inst.UUID)
	if err := s.FailNext(2, http.StatusServiceUnavailable); err != nil {
		t.Fatal(err)
	}
	since := s.RequestCount()
	var me scribe.User
	resp, err := inst.Do(ctx, http.MethodGet, "/users/me", nil, &me)
	if err != nil {
		t.Fatalf("Do GET /users/me through two 503s: %v", err)
	}
	if diff := cmp.Diff(w.grace, me); diff != "" {
		t.Errorf("decoded user (-want +got):\n%s", diff)
	}
	if resp.StatusCode != http.StatusOK || resp.Attempts != 3 || resp.RequestID == "" {
		t.Errorf("Response = status %d, %d attempts, request id %q; want 200 after 3 attempts, with a request id", resp.StatusCode, resp.Attempts, resp.RequestID)
	}
	if diff := cmp.Diff([]int{503, 503, 200}, statuses(integLog(s, since, "/users/me"))); diff != "" {
		t.Errorf("GET attempts (-want +got):\n%s", diff)
	}

	dev := w.devClient(t, w.dev)
	body := map[string]any{"name": "Through Do", "permissions": map[string]string{"user": "read", "transcript": "none"}}
	if err := s.FailNext(2, http.StatusServiceUnavailable); err != nil {
		t.Fatal(err)
	}
	since = s.RequestCount()
	var created scribe.Plugin
	if resp, err = dev.Do(ctx, http.MethodPost, "plugins", body, &created); err != nil {
		t.Fatalf("Do POST /plugins through two 503s: %v", err)
	}
	if created.Name != "Through Do" || created.Permissions.User != scribe.PermissionRead || resp.Attempts != 3 {
		t.Errorf("created %+v in %d attempts; want the plugin named Through Do, after 3 attempts", created, resp.Attempts)
	}
	reqs := integLog(s, since, "/plugins")
	keys := map[string]bool{}
	for _, r := range reqs {
		keys[r.IdempotencyKey] = true
	}
	if len(reqs) != 3 || len(keys) != 1 || keys[""] {
		t.Errorf("%d POSTs with Idempotency-Keys %v; want 3 attempts sharing one key", len(reqs), keys)
	}
	var named []int64
	for _, p := range s.Plugins() {
		if p.Name == "Through Do" {
			named = append(named, p.ID)
		}
	}
	if diff := cmp.Diff([]int64{created.ID}, named); diff != "" {
		t.Errorf("plugins created (-want +got):\n%s", diff)
	}

	// Retries run out: the error names the key, and the key finishes the work once.
	if err := s.FailNext(3, http.StatusServiceUnavailable); err != nil {
		t.Fatal(err)
	}
	body["name"] = "Finished later"
	_, err = dev.Do(ctx, http.MethodPost, "/plugins", body, nil)
	key, ok := scribe.IdempotencyKeyOf(err)
	var apiErr *scribe.Error
	if !ok || !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("Do POST after three 503s: err = %v, key %q; want the 503 *scribe.Error naming its key", err, key)
	}
	var first, again scribe.Plugin
	for _, p := range []*scribe.Plugin{&first, &again} {
		if _, err := dev.Do(ctx, http.MethodPost, "/plugins", body, p, scribe.WithIdempotencyKey(key)); err != nil {
			t.Fatalf("Do POST with the key of the failed call: %v", err)
		}
	}
	if first.ID == 0 || first.ID != again.ID {
		t.Errorf("the repeats with one key made plugins %d and %d; want one", first.ID, again.ID)
	}
}

// TestDoSends protects what Do sends: the path joined below the base URL's
// prefix with or without a leading slash, the query and escaped elements as
// written, a JSON body (a json.RawMessage as its JSON), and out decoded with the
// typed methods' checks.
func TestDoSends(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, path string
		body         any
		wantPath     string
		wantRawPath  string
		wantQuery    string
		wantBody     string
	}{
		{method: "GET", path: "users/me", wantPath: "/v1/users/me"},
		{method: "GET", path: "/transcripts?limit=5&after_id=3", wantPath: "/v1/transcripts", wantQuery: "limit=5&after_id=3"},
		{method: "GET", path: "/files/a%2Fb", wantPath: "/v1/files/a/b", wantRawPath: "/v1/files/a%2Fb"},
		{method: "PUT", path: "/things/1", body: map[string]int{"n": 1}, wantPath: "/v1/things/1", wantBody: `{"n":1}`},
		{method: "POST", path: "/things", body: json.RawMessage(`{"raw": true}`), wantPath: "/v1/things", wantBody: `{"raw":true}`},
	}
	for _, tt := range tests {
		var raw string
		f := newFake(t, func(req *http.Request) (*http.Response, error) {
			raw = req.URL.RawPath
			return ok(userJSON)(req)
		})
		var u scribe.User
		if _, err := f.client().Do(t.Context(), tt.method, tt.path, tt.body, &u); err != nil {
			t.Fatalf("Do %s %s: %v", tt.method, tt.path, err)
		}
		r := f.requests()[0]
		if r.Method != tt.method || r.Path != tt.wantPath || r.Query != tt.wantQuery || r.Body != tt.wantBody || raw != tt.wantRawPath {
			t.Errorf("Do %s %s sent %s %s (raw %q) ?%s body %q; want %s %s (raw %q) ?%s body %q", tt.method, tt.path,
				r.Method, r.Path, raw, r.Query, r.Body, tt.method, tt.wantPath, tt.wantRawPath, tt.wantQuery, tt.wantBody)
		}
		if u != wantUser {
			t.Errorf("Do %s %s decoded %+v, want %+v", tt.method, tt.path, u, wantUser)
		}
	}
	// out is decoded with the checks of its type: a user without its id is
	// refused, and with WithStrictDecoding one without its other members.
	var de *scribe.DecodeError
	f := newFake(t, ok(`{"first_name": "Ada"}`))
	if _, err := f.client().Do(t.Context(), "GET", "/users/me", nil, &scribe.User{}); !errors.As(err, &de) {
		t.Errorf("Do into a *User of a user without its id: err = %v, want the *DecodeError GetMe gives", err)
	}
	f = newFake(t, ok(`{"id": 8}`))
	if _, err := f.client(scribe.WithStrictDecoding()).Do(t.Context(), "GET", "/users/me", nil, &scribe.User{}); !errors.As(err, &de) {
		t.Errorf("Do, strictly, into a *User of an incomplete user: err = %v, want the *DecodeError GetMe gives", err)
	}
}

// TestDoRetriesByMethod protects Do's retry rule: methods RFC 9110 calls
// idempotent are retried after a 503 as a GET is, a POST with the same key
// on every attempt, and a PATCH or a POST without a key never, since a
// replay could do its work twice.
func TestDoRetriesByMethod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method   string
		opts     []scribe.Option
		attempts int
	}{
		{"GET", nil, 3}, {"PUT", nil, 3}, {"DELETE", nil, 3}, {"HEAD", nil, 3}, {"POST", nil, 3},
		{"PATCH", nil, 1}, {"POST", []scribe.Option{scribe.WithIdempotencyKey("")}, 1},
	}
	for _, tt := range tests {
		f := newFake(t, respond(503, "text/plain", "busy"))
		_, err := f.client().Do(t.Context(), tt.method, "/things/1", nil, nil, tt.opts...)
		var apiErr *scribe.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
			t.Errorf("%s: err = %v, want the 503 *scribe.Error", tt.method, err)
		}
		reqs := f.requests()
		if len(reqs) != tt.attempts {
			t.Errorf("%s %v: sent %d times, want %d", tt.method, tt.opts, len(reqs), tt.attempts)
		}
		for _, r := range reqs {
			if k := r.Header.Get("Idempotency-Key"); (k != "") != (tt.method == "POST" && tt.opts == nil) || k != reqs[0].Header.Get("Idempotency-Key") {
				t.Errorf("%s %v: Idempotency-Key %q on an attempt, first %q; want one key on every attempt of a POST, none otherwise",
					tt.method, tt.opts, k, reqs[0].Header.Get("Idempotency-Key"))
			}
		}
	}
}

// TestDoRefusesArguments protects that Do refuses, with an *ArgumentError
// naming the argument and before sending anything, a method it cannot send
// as meant, a path that is not below the base URL, an out it cannot decode
// into, and a body that is not JSON.
func TestDoRefusesArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, path string
		body, out    any
		wantArg      string
	}{
		{"", "/users/me", nil, nil, "method"},
		{"get", "/users/me", nil, nil, "method"},
		{"GET", "", nil, nil, "path"},
		{"GET", "/", nil, nil, "path"},
		{"GET", "https://evil.example/users/me", nil, nil, "path"},
		{"GET", "//evil.example/users/me", nil, nil, "path"},
		{"GET", "/users/me#x", nil, nil, "path"},
		{"GET", "/transcripts/../plugins", nil, nil, "path"},
		{"GET", "./users/me", nil, nil, "path"},
		{"GET", "/users/me", nil, scribe.User{}, "out"},
		{"GET", "/users/me", nil, (*scribe.User)(nil), "out"},
		{"POST", "/plugins", make(chan int), nil, "body"},
	}
	for _, tt := range tests {
		f := newFake(t, ok(userJSON))
		_, err := f.client().Do(t.Context(), tt.method, tt.path, tt.body, tt.out)
		var ae *scribe.ArgumentError
		if !errors.As(err, &ae) || ae.Func != "Do" || ae.Arg != tt.wantArg {
			t.Errorf("Do(%q, %q, %T, %T): err = %v, want a Do *ArgumentError for %s", tt.method, tt.path, tt.body, tt.out, err, tt.wantArg)
		}
		if n := len(f.requests()); n != 0 {
			t.Errorf("Do(%q, %q): sent %d requests, want none", tt.method, tt.path, n)
		}
	}
}
