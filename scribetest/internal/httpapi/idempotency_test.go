package httpapi

import (
	"strconv"
	"testing"
	"time"
)

var idemT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// TestExpiryKeepsReclaimedKey: a key abandoned (its first request failed
// with a 5xx) and claimed again later keeps its new answer for 24 hours
// from the new claim, though the first claim expires before; a finish of
// the abandoned claim changes nothing.
func TestExpiryKeepsReclaimedKey(t *testing.T) {
	t.Parallel()
	s := NewAnswers()
	k := newIdemKey("developer:1", "key")
	fp := fingerprintOf("POST", "/plugins", []byte("{}"))
	first, v := s.begin(k, fp, idemT0)
	if v != proceed {
		t.Fatalf("first claim: %v", v)
	}
	s.abandon(first)
	second, v := s.begin(k, fp, idemT0.Add(time.Hour))
	if v != proceed {
		t.Fatalf("claim after abandon: %v", v)
	}
	s.finish(first, reply("stale\n"), nil) // the abandoned claim's: ignored
	if _, v := s.begin(k, fp, idemT0.Add(time.Hour)); v != inUse {
		t.Fatalf("after the abandoned claim's finish: %v, want the second claim still in use", v)
	}
	s.finish(second, reply("{}\n"), nil)
	other := newIdemKey("developer:1", "other")
	if _, v := s.begin(other, fp, idemT0.Add(keyTTL)); v != proceed { // expires the first claim
		t.Fatalf("other key: %v", v)
	}
	kept, v := s.begin(k, fp, idemT0.Add(keyTTL))
	if v != replay || string(kept.Body) != "{}\n" {
		t.Fatalf("23 hours after the second claim: %v %+v; want the kept answer", v, kept)
	}
	if _, v := s.begin(k, fp, idemT0.Add(time.Hour+keyTTL)); v != proceed {
		t.Fatalf("24 hours after the second claim: %v; want a fresh claim", v)
	}
}

// TestVerdicts: the same key with another request is Reused; scopes keep
// two holders' keys apart.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	s := NewAnswers()
	a, b := newIdemKey("developer:1", "k"), newIdemKey("developer:2", "k")
	fp1, fp2 := fingerprintOf("POST", "/plugins", []byte(`{"name":"a"}`)), fingerprintOf("POST", "/plugins", []byte(`{"name":"b"}`))
	c, _ := s.begin(a, fp1, idemT0)
	s.finish(c, reply("a"), nil)
	if _, v := s.begin(a, fp2, idemT0); v != reused {
		t.Errorf("another body with the key: %v, want Reused", v)
	}
	if _, v := s.begin(b, fp2, idemT0); v != proceed {
		t.Errorf("another holder's same key: %v, want Proceed", v)
	}
}

// TestManyKeysExpire: with thousands of keys, each replays its own answer,
// and 24 hours later every one is gone: memory follows a day of keys.
func TestManyKeysExpire(t *testing.T) {
	t.Parallel()
	s := NewAnswers()
	const n = 5000
	fp := fingerprintOf("POST", "/plugins", nil)
	for i := range n {
		k := newIdemKey("developer:1", strconv.Itoa(i))
		c, _ := s.begin(k, fp, idemT0.Add(time.Duration(i)*time.Second))
		s.finish(c, reply(strconv.Itoa(i)), nil)
	}
	for i := range n {
		c, v := s.begin(newIdemKey("developer:1", strconv.Itoa(i)), fp, idemT0.Add(n*time.Second))
		if v != replay || string(c.Body) != strconv.Itoa(i) {
			t.Fatalf("key %d: %v %q", i, v, c.Body)
		}
	}
	s.begin(newIdemKey("developer:1", "late"), fp, idemT0.Add(keyTTL+n*time.Second))
	if got := len(s.claims); got != 1 {
		t.Errorf("%d keys kept a day later, want only the new one", got)
	}
}
