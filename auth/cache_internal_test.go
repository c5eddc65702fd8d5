package auth

import "testing"

// TestVictimSecondChance protects the CLOCK sweep: the hand passes entries
// used since it last passed (clearing their bits), takes the first one not
// used, never takes the entry just added while there is another, and always
// ends.
func TestVictimSecondChance(t *testing.T) {
	ring := func(refs ...bool) *cacheShard {
		sh := &cacheShard{}
		for i, r := range refs {
			ts := &TokenSource{slot: int32(i)}
			ts.ref.Store(r)
			sh.ring = append(sh.ring, ts)
		}
		return sh
	}
	sh := ring(true, false, true)
	if h := sh.victim(nil); h != 1 {
		t.Errorf("victim = %d, want 1 (the first entry not used)", h)
	}
	if sh.ring[0].ref.Load() || !sh.ring[2].ref.Load() {
		t.Error("the hand must clear the bits it passes, and only those")
	}
	if sh.hand != 2 {
		t.Errorf("hand = %d, want 2 (after the victim)", sh.hand)
	}

	sh = ring(true, true, true)
	if h := sh.victim(nil); h != 0 {
		t.Errorf("all used: victim = %d, want 0 (after one turn every bit is clear)", h)
	}

	sh = ring(false, true)
	if h := sh.victim(sh.ring[0]); h != 1 {
		t.Errorf("victim skipping the new entry = %d, want 1", h)
	}
	sh = ring(false)
	if h := sh.victim(sh.ring[0]); h != 0 {
		t.Errorf("only the new entry: victim = %d, want 0", h)
	}
}
