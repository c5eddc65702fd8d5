package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/internal/apitest"
)

// TestBinaryNonCanonicalPaths: the binary, with -base-path and -admin,
// answers raw request targets that http.ServeMux would clean and redirect
// (text/html) with 404 not_found as problem+json with a Request-Id, the
// document's 404; the admin API's get its own 404 shape.
func TestBinaryNonCanonicalPaths(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-base-path", "/v1", "-admin"}, pw, io.Discard)
		pw.Close()
	}()
	base := firstLine(t, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/v1")
	doc := apitest.NewValidator(t).WithBasePath("/v1")

	for _, target := range []string{"/v1//plugins", "//v1/plugins", "/v1/plugins/", "/v1/plugins/./1", "/v1/plugins/1/", "/v1/%2e/plugins", "/%2e/v1/plugins", "/v1/x/../plugins"} {
		resp, body := apitest.RawExchange(t, base, http.MethodGet, target, "")
		var p struct {
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(body, &p)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/problem+json" ||
			p.Code != "not_found" || p.RequestID == "" || p.RequestID != resp.Header.Get("Request-Id") {
			t.Errorf("GET %s: %d %q Location %q body %.200q; want 404 problem+json not_found with its Request-Id",
				target, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Location"), body)
			continue
		}
		req, err := http.NewRequest(http.MethodGet, "http://"+host+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.ValidateResponse(req, resp, body); err != nil {
			t.Errorf("GET %s: the answer does not conform to api/openapi.yaml: %v", target, err)
		}
	}
	for _, target := range []string{"/_scribetest//deliveries", "/_scribetest/./deliveries"} {
		resp, body := apitest.RawExchange(t, base, http.MethodGet, target, "")
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Location") != "" || !strings.Contains(string(body), `"error"`) {
			t.Errorf("GET %s: %d Location %q body %.200q; want 404 {\"error\"}", target, resp.StatusCode, resp.Header.Get("Location"), body)
		}
	}
}
