package scribetest

import (
	"testing"
	"time"
)

// TestIdempotencyExpiryKeepsReclaimedKey: a key abandoned (its first request
// failed with a 5xx) and claimed again later keeps its new response for 24
// hours from the new claim, though the first claim expires before.
func TestIdempotencyExpiryKeepsReclaimedKey(t *testing.T) {
	t.Parallel()
	st := newIdempotencyStore()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	k := newIdemKey("developer:1", "key")
	fp := [32]byte{1}
	if resp, p := st.begin(k, fp, t0); resp != nil || p != nil {
		t.Fatalf("first claim: %v, %v", resp, p)
	}
	st.abandon(k)
	if resp, p := st.begin(k, fp, t0.Add(time.Hour)); resp != nil || p != nil {
		t.Fatalf("claim after abandon: %v, %v", resp, p)
	}
	st.finish(k, response{status: 200, body: []byte("{}\n")})
	// The first claim is 24 hours old: expiring it must not drop the second.
	other := newIdemKey("developer:1", "other")
	if resp, p := st.begin(other, fp, t0.Add(idempotencyTTL)); resp != nil || p != nil {
		t.Fatalf("other key: %v, %v", resp, p)
	}
	resp, p := st.begin(k, fp, t0.Add(idempotencyTTL))
	if p != nil || resp == nil || string(resp.body) != "{}\n" {
		t.Fatalf("replay 23 hours after the second claim = %v, %v; want the kept response", resp, p)
	}
	if resp, p := st.begin(k, fp, t0.Add(time.Hour+idempotencyTTL)); resp != nil || p != nil {
		t.Fatalf("24 hours after the second claim = %v, %v; want a fresh claim", resp, p)
	}
}
