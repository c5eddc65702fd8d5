package scribetest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// TestIdempotencyExpiryKeepsReclaimedKey: a key abandoned (its first request
// failed with a 5xx) and claimed again later keeps its new response for 24
// hours from the new claim, though the first claim expires before.
func TestIdempotencyExpiryKeepsReclaimedKey(t *testing.T) {
	t.Parallel()
	st := newIdempotencyStore()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	k := newIdemKey("developer:1", "key")
	fp := fingerprint{1}
	_, replay, first, p := st.begin(k, fp, t0)
	if replay || p != nil {
		t.Fatalf("first claim: replay %v, %v", replay, p)
	}
	st.abandon(k, first)
	_, replay, second, p := st.begin(k, fp, t0.Add(time.Hour))
	if replay || p != nil {
		t.Fatalf("claim after abandon: replay %v, %v", replay, p)
	}
	st.finish(k, first, response{status: 200, body: []byte("stale\n")}) // the abandoned claim's: ignored
	if _, _, _, p := st.begin(k, fp, t0.Add(time.Hour)); p == nil || p.code != scribe.CodeIdempotencyKeyInUse {
		t.Fatalf("after the abandoned claim's finish: %v, want the second claim still in use", p)
	}
	st.finish(k, second, response{status: 200, body: []byte("{}\n")})
	// The first claim is 24 hours old: expiring it must not drop the second.
	other := newIdemKey("developer:1", "other")
	if _, replay, _, p := st.begin(other, fp, t0.Add(idempotencyTTL)); replay || p != nil {
		t.Fatalf("other key: replay %v, %v", replay, p)
	}
	resp, replay, _, p := st.begin(k, fp, t0.Add(idempotencyTTL))
	if p != nil || !replay || string(resp.body) != "{}\n" || resp.status != 200 {
		t.Fatalf("replay 23 hours after the second claim = %+v, %v, %v; want the kept response", resp, replay, p)
	}
	if _, replay, _, p := st.begin(k, fp, t0.Add(time.Hour+idempotencyTTL)); replay || p != nil {
		t.Fatalf("24 hours after the second claim: replay %v, %v; want a fresh claim", replay, p)
	}
}

// TestIdempotencyStoreManyKeys protects the chunked layout of the
// idempotency store: with thousands of keys across many chunks, every key
// replays its own response (body or problem) with its status, a key
// abandoned can be claimed again, entries expire 24 hours after their claim
// by the store's clock and not before, the map and the problems go with
// them, and the chunks before the expiry are let go.
func TestIdempotencyStoreManyKeys(t *testing.T) {
	t.Parallel()
	st := newIdempotencyStore()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	const n = 5*idemChunkLen + 17
	key := func(i int) idemKey { return newIdemKey("developer:1", itoa(int64(i))) }
	fp := func(i int) fingerprint { return fingerprint{uint64(i), 1} }
	body := func(i int) string { return strings.Repeat(itoa(int64(i)), 1+i%40) + "\n" } // crosses block boundaries
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	for i := range n {
		_, replay, ticket, p := st.begin(key(i), fp(i), at(i))
		if replay || p != nil {
			t.Fatalf("claim %d: replay %v, %v", i, replay, p)
		}
		switch {
		case i%7 == 3: // a 5xx: abandoned
			st.abandon(key(i), ticket)
		case i%5 == 1:
			st.finish(key(i), ticket, response{status: 409, problem: newProblem(409, "conflict", itoa(int64(i)))})
		default:
			st.finish(key(i), ticket, response{status: 200 + i%3, body: []byte(body(i))})
		}
	}
	checkIdemLive(t, st)
	if len(st.chunks) != n/idemChunkLen+1 {
		t.Fatalf("%d chunks for %d entries, want %d", len(st.chunks), n, n/idemChunkLen+1)
	}
	now := at(n)
	for i := range n {
		resp, replay, ticket, p := st.begin(key(i), fp(i), now)
		switch {
		case p != nil:
			t.Fatalf("key %d: %v", i, p)
		case i%7 == 3:
			if replay {
				t.Fatalf("abandoned key %d replayed %+v; want a fresh claim", i, resp)
			}
			st.finish(key(i), ticket, response{status: 200, body: []byte("again\n")})
		case !replay:
			t.Fatalf("key %d: no replay", i)
		case i%5 == 1:
			if resp.status != 409 || resp.problem == nil || resp.problem.detail != itoa(int64(i)) {
				t.Fatalf("key %d replayed %+v; want its problem", i, resp)
			}
		default:
			if resp.status != 200+i%3 || string(resp.body) != body(i) {
				t.Fatalf("key %d replayed %d %q; want %d %q", i, resp.status, resp.body, 200+i%3, body(i))
			}
		}
		if _, _, _, p := st.begin(key(i), fingerprint{9}, now); p == nil || p.code != scribe.CodeIdempotencyKeyReused {
			t.Fatalf("key %d with another fingerprint: %v, want idempotency_key_reused", i, p)
		}
	}

	checkIdemLive(t, st)
	// One second before the first claim is 24 hours old, nothing expires.
	if _, _, _, p := st.begin(key(-1), fp(0), t0.Add(idempotencyTTL-time.Second)); p != nil {
		t.Fatal(p)
	}
	if resp, replay, _, _ := st.begin(key(0), fp(0), t0.Add(idempotencyTTL-time.Nanosecond)); !replay || string(resp.body) != body(0) {
		t.Fatalf("key 0 a nanosecond before 24 hours: replay %v; want its response", replay)
	}
	// 24 hours after claim half: the first half is gone, the rest stays.
	half := n / 2
	later := at(half).Add(idempotencyTTL)
	if _, replay, _, p := st.begin(key(half-1), fp(half-1), later); replay || p != nil {
		t.Fatalf("key %d after 24 hours: replay %v, %v; want a fresh claim", half-1, replay, p)
	}
	for i := half + 1; i < n; i += 97 {
		if _, replay, _, _ := st.begin(key(i), fp(i), later); !replay {
			t.Fatalf("key %d, claimed less than 24 hours before, was dropped", i)
		}
	}
	for i := range half { // claim i has sequence number i+1; keys i%7 == 3 were claimed again at now
		if _, ok := st.index[key(i)]; ok && i != half-1 && i%7 != 3 {
			t.Fatalf("key %d is still indexed after it expired", i)
		}
	}
	for seq := range st.problems {
		if seq <= uint64(half) {
			t.Fatalf("the problem of claim %d is kept after it expired", seq)
		}
	}
	checkIdemLive(t, st)
	if len(st.chunks) > (n-half)/idemChunkLen+3 {
		t.Errorf("%d chunks kept for %d live entries", len(st.chunks), st.len())
	}

	// Everything expires: the store is empty but for the last claim.
	end := later.Add(idempotencyTTL)
	if _, replay, _, p := st.begin(key(0), fp(0), end); replay || p != nil {
		t.Fatalf("at the end: replay %v, %v", replay, p)
	}
	if len(st.index) != 1 || len(st.problems) != 0 || st.len() != 1 || len(st.chunks) != 1 {
		t.Errorf("after everything expired: %d keys, %d problems, %d entries in %d chunks; want 1, 0, 1, 1",
			len(st.index), len(st.problems), st.len(), len(st.chunks))
	}
}

// TestIdempotencyEntryPointerFree: the entries, which the store keeps for
// 24 hours, one per POST, hold no pointer for the collector to trace.
func TestIdempotencyEntryPointerFree(t *testing.T) {
	if hasPointers(reflect.TypeFor[idemEntry]()) {
		t.Error("idemEntry holds a pointer")
	}
}

// hasPointers reports whether a value of t holds a pointer.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for f := range t.Fields() {
			if hasPointers(f.Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

// checkIdemLive checks the idempotency store's invariant: an entry in the
// order is live exactly when the index holds it for its key, and every key
// the index holds names a live entry in the order.
func checkIdemLive(t *testing.T, st *idempotencyStore) {
	t.Helper()
	live := 0
	for i := range st.len() {
		seq := st.headSeq + uint64(i)
		e, _ := st.at(seq)
		got, ok := st.index[e.key]
		if e.live != (ok && got == seq) {
			t.Fatalf("entry %d: live = %v, index holds %d, %v", seq, e.live, got, ok)
		}
		if e.live {
			live++
		}
	}
	if live != len(st.index) {
		t.Fatalf("%d live entries, %d keys indexed", live, len(st.index))
	}
}
