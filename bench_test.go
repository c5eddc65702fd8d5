package scribe_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/scribehq/scribe-go"
)

// benchTransport answers every request with one transcript, in memory.
func benchTransport() *httpmock.MockTransport {
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(respond(200, "application/json", transcriptJSON))
	return mt
}

// BenchmarkBaselineRawHTTP is the floor: a bare net/http GET through the same
// in-memory transport, decoding the same body.
func BenchmarkBaselineRawHTTP(b *testing.B) {
	hc := &http.Client{Transport: benchTransport()}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, testBase+"/transcripts/42", nil)
		req.Header.Set("Authorization", "Bearer "+testDevKey)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var t scribe.Transcript
		if err := json.Unmarshal(data, &t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetTranscript is the client's whole pipeline for one call
// (options, retry machinery, per-attempt round tripper, decoding), to compare
// with the baseline.
func BenchmarkGetTranscript(b *testing.B) {
	c, err := scribe.NewClient(testBase, scribe.WithHTTPClient(&http.Client{Transport: benchTransport()}), scribe.WithDeveloperKey(testDevKey))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.GetTranscript(ctx, 42); err != nil {
			b.Fatal(err)
		}
	}
}
