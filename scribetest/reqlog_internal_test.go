package scribetest

import (
	"net/http"
	"strings"
	"testing"
)

// TestRequestLogFieldsWithoutCopies protects the request log's per-request
// cost: a standard method and an Idempotency-Key within its limit are kept
// without a copy (no allocation), while an unknown method and an over-long
// key are still bounded and marked as truncate bounds them.
func TestRequestLogFieldsWithoutCopies(t *testing.T) {
	post := string([]byte("POST")) // not the constant, as a parsed request line's is not
	key := strings.Repeat("k", maxIdempotencyKey)
	if got := loggedMethod(post); got != http.MethodPost {
		t.Fatalf("loggedMethod(POST) = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = loggedMethod(post); _ = loggedHeader(key, maxIdempotencyKey) }); n != 0 {
		t.Errorf("logging POST and a %d-byte key allocates %v times; want 0", len(key), n)
	}
	if got := loggedHeader(key, maxIdempotencyKey); got != key {
		t.Errorf("a key of the limit's length was changed: %q", got)
	}
	long := strings.Repeat("M", 100)
	if got := loggedMethod(long); len(got) != maxLoggedMethod+len(TruncatedMarker) || !strings.HasSuffix(got, TruncatedMarker) {
		t.Errorf("a 100-byte method logged as %q; want %d bytes and the marker", got, maxLoggedMethod)
	}
	if got := loggedHeader(key+"x", maxIdempotencyKey); got != key+TruncatedMarker {
		t.Errorf("an over-long key logged as %q; want it cut to %d bytes and marked", got, maxIdempotencyKey)
	}
}
