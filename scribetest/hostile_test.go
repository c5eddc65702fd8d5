package scribetest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest"
)

// hostileReply sends one request with a plain client (no contract
// validation: 414 and 431 are the point) and returns its status and problem.
func hostileReply(t *testing.T, c *http.Client, method, url string, header map[string]string) (int, string, wire.Problem) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %.60s...: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var p wire.Problem
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: %d body is not a problem document: %.200s", method, resp.StatusCode, body)
		}
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), p
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHostileTrafficKeepsMemoryBounded sends what an abuser would, without
// credentials: 150 requests whose URL is ~900 KB (half in the path, half in
// the query), 150 POSTs with a 20 KB Idempotency-Key, and headers over the
// limit. Each is answered as problem+json (414, 400, 431) and the server's
// heap, after GC, grows by less than 16 MiB. Before the limits the request
// log kept every raw path, query and key: the same traffic held ~270 MB.
func TestHostileTrafficKeepsMemoryBounded(t *testing.T) {
	// Not parallel: it measures the process's heap.
	s := scribetest.NewTestServer(t)
	c := &http.Client{}
	t.Cleanup(c.CloseIdleConnections)
	const bound = 16 << 20

	before := heapAfterGC()
	long := strings.Repeat("a", 900_000)
	for i := range 150 {
		url := s.URL() + "/transcripts/" + long
		if i%2 == 1 {
			url = s.URL() + "/transcripts?after_id=" + long
		}
		status, ct, p := hostileReply(t, c, http.MethodGet, url, nil)
		if status != http.StatusRequestURITooLong || ct != wire.ProblemContentType || p.Code != "uri_too_long" || p.RequestID == "" {
			t.Fatalf("GET with a 900 KB URL = %d %q %q, want 414 problem+json uri_too_long with a request id", status, ct, p.Code)
		}
	}
	key := strings.Repeat("k", 20_000)
	for range 150 {
		status, _, p := hostileReply(t, c, http.MethodPost, s.URL()+"/plugins", map[string]string{"Idempotency-Key": key})
		if status != http.StatusUnauthorized {
			t.Fatalf("POST with a 20 KB Idempotency-Key and no token = %d %q, want 401", status, p.Code)
		}
	}
	for range 20 {
		status, ct, p := hostileReply(t, c, http.MethodGet, s.URL()+"/plugins", map[string]string{"X-Filler": strings.Repeat("x", 40_000)})
		if status != http.StatusRequestHeaderFieldsTooLarge || ct != wire.ProblemContentType || p.Code != "headers_too_large" {
			t.Fatalf("GET with 40 KB of headers = %d %q %q, want 431 problem+json headers_too_large", status, ct, p.Code)
		}
	}
	c.CloseIdleConnections()
	after := heapAfterGC()
	if grew := int64(after) - int64(before); grew > bound {
		t.Errorf("the heap grew by %d MiB under hostile traffic, want under %d MiB", grew>>20, bound>>20)
	}

	reqs := s.Requests()
	if len(reqs) != 320 {
		t.Fatalf("the request log holds %d requests, want 320", len(reqs))
	}
	for _, r := range reqs {
		for field, v := range map[string]string{"Path": r.Path, "Query": r.Query, "IdempotencyKey": r.IdempotencyKey} {
			if len(v) > 512+len(scribetest.TruncatedMarker) {
				t.Fatalf("the request log keeps a %s of %d bytes", field, len(v))
			}
		}
	}
	if k := reqs[len(reqs)-21].IdempotencyKey; k != strings.Repeat("k", 255)+scribetest.TruncatedMarker {
		t.Errorf("a 20 KB Idempotency-Key is logged as %.300q, want its first 255 characters and the marker", k)
	}
}

// TestRequestHeadLimits pins the edges of the limits: a request target of
// exactly 8 KiB and 32 KiB of header fields are served; one byte more is a
// 414 or a 431 problem.
func TestRequestHeadLimits(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	c := &http.Client{}
	t.Cleanup(c.CloseIdleConnections)
	prefix := "/transcripts?x="
	target := func(n int) string { return s.URL() + prefix + strings.Repeat("a", n-len(prefix)) }

	if status, _, p := hostileReply(t, c, http.MethodGet, target(8<<10), nil); status != http.StatusUnauthorized {
		t.Errorf("a request target of 8 KiB = %d %q, want it served (401 without a token)", status, p.Code)
	}
	if status, _, _ := hostileReply(t, c, http.MethodGet, target(8<<10+1), nil); status != http.StatusRequestURITooLong {
		t.Errorf("a request target of 8 KiB + 1 = %d, want 414", status)
	}

	// Go's client sends Host and User-Agent, and adds Accept-Encoding; the
	// filler brings the header fields the server sees to the size wanted.
	u := s.URL()
	host := strings.TrimPrefix(u, "http://")
	fixed := len(host) + len("User-Agent") + len("Go-http-client/1.1") + 4 + len("Accept-Encoding") + len("gzip") + 4
	filler := func(n int) map[string]string {
		return map[string]string{"X-Filler": strings.Repeat("x", n-fixed-len("X-Filler")-4)}
	}
	if status, _, p := hostileReply(t, c, http.MethodGet, u+"/plugins", filler(32<<10)); status != http.StatusUnauthorized {
		t.Errorf("32 KiB of header fields = %d %q, want it served (401 without a token)", status, p.Code)
	}
	if status, _, _ := hostileReply(t, c, http.MethodGet, u+"/plugins", filler(32<<10+1)); status != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("32 KiB + 1 of header fields = %d, want 431", status)
	}
}
