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

// TestClaimQueueFIFOAcrossChunks protects the idempotency store's creation
// order: claims come out in the order they went in, across chunk
// boundaries, and an emptied queue starts over without keeping old chunks.
func TestClaimQueueFIFOAcrossChunks(t *testing.T) {
	var q claimQueue
	t0 := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	next, want := 0, 0
	for round, n := range []int{1, claimChunk - 1, claimChunk + 1, 3*claimChunk + 7} {
		for range n {
			q.push(idemClaim{created: t0.Add(time.Duration(next))})
			next++
		}
		if q.len() != next-want {
			t.Fatalf("round %d: len %d after pushes, want %d", round, q.len(), next-want)
		}
		for range n - round { // leave a few behind on later rounds
			c, ok := q.front()
			if !ok || !c.created.Equal(t0.Add(time.Duration(want))) {
				t.Fatalf("round %d: front = %v, %v; want claim %d", round, c.created, ok, want)
			}
			q.pop()
			want++
		}
	}
	for q.len() > 0 {
		c, _ := q.front()
		if !c.created.Equal(t0.Add(time.Duration(want))) {
			t.Fatalf("draining: front = %v, want claim %d", c.created, want)
		}
		q.pop()
		want++
	}
	if _, ok := q.front(); ok || want != next || len(q.chunks) > 1 {
		t.Errorf("after draining: front ok=%v, popped %d of %d, %d chunks kept", ok, want, next, len(q.chunks))
	}
}
