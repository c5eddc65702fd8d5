package scribetest

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBodyLimitWithoutMaxBytesReader protects the body limit where
// readJSONBody reads without http.MaxBytesReader (a Content-Length within
// the limit): a body longer than it declared and than the limit, as a
// handler test can build, is still refused with 413, and a body of exactly
// the limit is read whole.
func TestBodyLimitWithoutMaxBytesReader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		size     int
		declared int64
		want     int // 0: read whole
	}{
		{"at the limit", maxBodyBytes, maxBodyBytes, 0},
		{"over the limit, declared short", maxBodyBytes + 1, 2, http.StatusRequestEntityTooLarge},
		{"over the limit, declared over", maxBodyBytes + 1, maxBodyBytes + 1, http.StatusRequestEntityTooLarge},
		{"over the limit, chunked", maxBodyBytes + 1, -1, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/plugins", bytes.NewReader(make([]byte, tc.size)))
			r.Header.Set("Content-Type", "application/json")
			r.ContentLength = tc.declared
			buf, start, p := readJSONBody(httptest.NewRecorder(), r)
			switch {
			case tc.want == 0 && p != nil:
				t.Fatalf("refused: %v", p)
			case tc.want == 0 && len(*buf)-start != tc.size:
				t.Fatalf("read %d bytes of %d", len(*buf)-start, tc.size)
			case tc.want != 0 && (p == nil || p.status != tc.want):
				t.Fatalf("problem %v, want %d", p, tc.want)
			}
		})
	}
	var buf []byte
	err := readAllInto(&buf, strings.NewReader(strings.Repeat("x", maxBodyBytes+1)), 10)
	if _, ok := errors.AsType[*http.MaxBytesError](err); !ok {
		t.Errorf("readAllInto past the limit: %v, want *http.MaxBytesError", err)
	}
}
