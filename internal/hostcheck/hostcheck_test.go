package hostcheck_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/internal/hostcheck"
	"github.com/scribehq/scribe-go/internal/wire"
)

// The defaults answer what a local client sends (loopback names and IP
// literals, with or without a port) and refuse every other name, which is
// how a DNS-rebinding page arrives; names given are answered too.
func TestAllows(t *testing.T) {
	l, err := hostcheck.New("scribe", "App.Test.")
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"": true, "localhost": true, "localhost:8080": true, "LOCALHOST.": true, "app.localhost:1": true,
		"127.0.0.1": true, "127.0.0.1:8080": true, "10.1.2.3:9": true, "[::1]:8080": true, "[::1]": true, "::1": true,
		"scribe:8080": true, "app.test": true, "APP.TEST:80": true,
		"evil.example": false, "evil.example:8080": false, "localhost.evil.example": false, "evillocalhost": false,
		"scribe.evil": false, "127.0.0.1.nip.io": false, "example.com": false,
	} {
		if got := l.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	var zero hostcheck.List
	if !zero.Allows("localhost:1") || zero.Allows("scribe") {
		t.Error("the zero List must allow the defaults only")
	}
}

// A name that is not a host name is refused with what to give instead.
func TestNewRefusesWhatIsNoName(t *testing.T) {
	for _, n := range []string{"", "scribe:8080", "http://scribe", "a/b", "a b", "caf\xe9"} {
		if _, err := hostcheck.New(n); err == nil || !strings.Contains(err.Error(), "not a host name") {
			t.Errorf("New(%q) = %v, want an error saying it is not a host name", n, err)
		}
	}
}

// A refused request gets 403 naming the host and the flag: a problem
// document, or a text page on the dashboard's paths, decided on the decoded
// path (so /_scribetest/%75i/ is the dashboard too); next never runs.
func TestWrapRefuses(t *testing.T) {
	l, _ := hostcheck.New()
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Errorf("served %s for host %s", r.URL, r.Host) }))
	for target, ctype := range map[string]string{
		"/transcripts": "application/problem+json", "/_scribetest/deliveries": "application/problem+json",
		"/_scribetest/ui/events": "text/plain; charset=utf-8", "/_scribetest/%75i/events": "text/plain; charset=utf-8",
	} {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = "evil.example:8080"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != http.StatusForbidden || w.Header().Get("Content-Type") != ctype ||
			!strings.Contains(body, "evil.example:8080") || !strings.Contains(body, "-allowed-hosts") {
			t.Errorf("%s: %d %s %s, want 403 %s naming the host and the flag", target, w.Code, w.Header().Get("Content-Type"), body, ctype)
		}
	}
	ok := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	r := httptest.NewRequest(http.MethodGet, "/transcripts", nil)
	r.Host = "127.0.0.1:8080"
	w := httptest.NewRecorder()
	if ok.ServeHTTP(w, r); w.Code != http.StatusTeapot {
		t.Errorf("an allowed host got %d, want the handler's 418", w.Code)
	}
}

// A refusal carries a Request-Id, as every answer of the server does, fresh
// for each refusal; the problem document's request_id is the same, never
// empty.
func TestRefuseCarriesRequestID(t *testing.T) {
	seen := map[string]bool{}
	for _, target := range []string{"/transcripts", "/transcripts", "/_scribetest/deliveries", "/_scribetest/ui/events"} {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = "evil.example"
		w := httptest.NewRecorder()
		hostcheck.Refuse(w, r)
		id := w.Header().Get("Request-Id")
		if !strings.HasPrefix(id, "req_") || len(id) < len("req_")+16 || seen[id] {
			t.Errorf("%s: Request-Id %q, want a fresh req_ id", target, id)
		}
		seen[id] = true
		if strings.HasPrefix(target, hostcheck.TextPrefix) {
			continue // a text page: the header is its request id
		}
		var p wire.Problem
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.RequestID != id {
			t.Errorf("%s: request_id %q (%v), want the Request-Id %q", target, p.RequestID, err, id)
		}
	}
}
