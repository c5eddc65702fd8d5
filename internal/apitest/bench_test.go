package apitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// fullPage is a listTranscripts answer at the largest limit.
func fullPage(b *testing.B) (*http.Request, *http.Response, []byte) {
	b.Helper()
	items := make([]map[string]any, 100)
	for i := range items {
		items[i] = transcript()
		items[i]["id"] = i + 1
	}
	page := transcriptList(items...)
	page["has_more"] = true
	body, err := json.Marshal(page)
	if err != nil {
		b.Fatal(err)
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{}}
	for k, v := range okHeaders() {
		resp.Header.Set(k, v)
	}
	req := httptest.NewRequest(http.MethodGet, "/v1/transcripts?limit=100", nil)
	req.Header.Set("Authorization", "Bearer token")
	return req, resp, body
}

// BenchmarkValidateResponse is what the harness adds to each exchange for a
// page of 100 transcripts; compare with BenchmarkDecodeBaseline.
func BenchmarkValidateResponse(b *testing.B) {
	v := NewValidator(b)
	req, resp, body := fullPage(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.ValidateResponse(req, resp, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBaseline decodes the same page into generic JSON, the floor
// any schema validation starts from.
func BenchmarkDecodeBaseline(b *testing.B) {
	_, _, body := fullPage(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
}
