package idempotency

import (
	"strconv"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// TestExpiryKeepsReclaimedKey: a key abandoned (its first request failed
// with a 5xx) and claimed again later keeps its new answer for 24 hours
// from the new claim, though the first claim expires before; a finish of
// the abandoned claim changes nothing.
func TestExpiryKeepsReclaimedKey(t *testing.T) {
	t.Parallel()
	s := New()
	k := NewKey("developer:1", "key")
	fp := FingerprintOf("POST", "/plugins", []byte("{}"))
	_, v, first := s.Begin(k, fp, t0)
	if v != Proceed {
		t.Fatalf("first claim: %v", v)
	}
	s.Abandon(k, first)
	_, v, second := s.Begin(k, fp, t0.Add(time.Hour))
	if v != Proceed {
		t.Fatalf("claim after abandon: %v", v)
	}
	s.Finish(k, first, Response{Status: 200, Body: []byte("stale\n")}) // the abandoned claim's: ignored
	if _, v, _ := s.Begin(k, fp, t0.Add(time.Hour)); v != InUse {
		t.Fatalf("after the abandoned claim's finish: %v, want the second claim still in use", v)
	}
	s.Finish(k, second, Response{Status: 200, Body: []byte("{}\n")})
	other := NewKey("developer:1", "other")
	if _, v, _ := s.Begin(other, fp, t0.Add(TTL)); v != Proceed { // expires the first claim
		t.Fatalf("other key: %v", v)
	}
	resp, v, _ := s.Begin(k, fp, t0.Add(TTL))
	if v != Replay || string(resp.Body) != "{}\n" || resp.Status != 200 {
		t.Fatalf("23 hours after the second claim: %v %+v; want the kept answer", v, resp)
	}
	if _, v, _ := s.Begin(k, fp, t0.Add(time.Hour+TTL)); v != Proceed {
		t.Fatalf("24 hours after the second claim: %v; want a fresh claim", v)
	}
}

// TestVerdicts: the same key with another request is Reused; scopes keep
// two holders' keys apart.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	s := New()
	a, b := NewKey("developer:1", "k"), NewKey("developer:2", "k")
	fp1, fp2 := FingerprintOf("POST", "/plugins", []byte(`{"name":"a"}`)), FingerprintOf("POST", "/plugins", []byte(`{"name":"b"}`))
	_, _, t1 := s.Begin(a, fp1, t0)
	s.Finish(a, t1, Response{Status: 200, Body: []byte("a")})
	if _, v, _ := s.Begin(a, fp2, t0); v != Reused {
		t.Errorf("another body with the key: %v, want Reused", v)
	}
	if _, v, _ := s.Begin(b, fp2, t0); v != Proceed {
		t.Errorf("another holder's same key: %v, want Proceed", v)
	}
}

// TestManyKeysExpire: with thousands of keys, each replays its own answer,
// and 24 hours later every one is gone: memory follows a day of keys.
func TestManyKeysExpire(t *testing.T) {
	t.Parallel()
	s := New()
	const n = 5000
	fp := FingerprintOf("POST", "/plugins", nil)
	for i := range n {
		k := NewKey("developer:1", strconv.Itoa(i))
		_, _, tk := s.Begin(k, fp, t0.Add(time.Duration(i)*time.Second))
		s.Finish(k, tk, Response{Status: 200, Body: []byte(strconv.Itoa(i))})
	}
	for i := range n {
		resp, v, _ := s.Begin(NewKey("developer:1", strconv.Itoa(i)), fp, t0.Add(n*time.Second))
		if v != Replay || string(resp.Body) != strconv.Itoa(i) {
			t.Fatalf("key %d: %v %q", i, v, resp.Body)
		}
	}
	s.Begin(NewKey("developer:1", "late"), fp, t0.Add(TTL+n*time.Second))
	if got := s.Len(); got != 1 {
		t.Errorf("%d keys kept a day later, want only the new one", got)
	}
}
