package webhook

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for the store's expiry.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestStore(ttl time.Duration, maxEntries int) (*MemoryDedupeStore, *fakeClock) {
	c := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s := NewMemoryDedupeStore(ttl, maxEntries)
	s.now = c.now
	return s, c
}

func reserve(t *testing.T, s DedupeStore, id string) Reservation {
	t.Helper()
	r, err := s.Reserve(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Reserve, Complete and Release move an id through its states as the
// DedupeStore contract says.
func TestMemoryDedupeStoreLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newTestStore(time.Hour, 10)
	steps := []struct {
		do   func()
		want Reservation
	}{
		{func() {}, Reserved},                                 // a new id is reserved
		{func() {}, InFlight},                                 // while held, others wait
		{func() { _ = s.Release(ctx, "a") }, Reserved},        // released: reserved again
		{func() { _ = s.Complete(ctx, "a") }, Duplicate},      // completed: a duplicate
		{func() { _ = s.Release(ctx, "a") }, Duplicate},       // Release does not undo Complete
		{func() { _ = s.Complete(ctx, "other") }, Duplicate},  // other ids are independent
		{func() { _ = s.Release(ctx, "missing") }, Duplicate}, // releasing an unknown id is a no-op
	}
	for i, st := range steps {
		st.do()
		if got := reserve(t, s, "a"); got != st.want {
			t.Fatalf("step %d: Reserve = %v, want %v", i, got, st.want)
		}
	}
}

// An id is forgotten ttl after its last change, so memory does not grow
// without bound; reservations that were never settled expire too.
func TestMemoryDedupeStoreExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock := newTestStore(10*time.Minute, 100)
	reserve(t, s, "done")
	_ = s.Complete(ctx, "done")
	reserve(t, s, "abandoned")
	clock.advance(10*time.Minute - time.Second)
	if got := reserve(t, s, "done"); got != Duplicate {
		t.Errorf("before ttl: Reserve(done) = %v, want Duplicate", got)
	}
	clock.advance(time.Second)
	if s.Len() != 0 {
		t.Errorf("after ttl: Len = %d, want 0", s.Len())
	}
	if got := reserve(t, s, "done"); got != Reserved {
		t.Errorf("after ttl: Reserve(done) = %v, want Reserved", got)
	}
	if got := reserve(t, s, "abandoned"); got != Reserved {
		t.Errorf("after ttl: Reserve(abandoned) = %v, want Reserved", got)
	}
}

// Complete restarts an id's ttl: an event that took long to process is
// remembered for ttl after it finished.
func TestMemoryDedupeStoreCompleteRestartsTTL(t *testing.T) {
	t.Parallel()
	s, clock := newTestStore(10*time.Minute, 100)
	reserve(t, s, "slow")
	reserve(t, s, "other")
	clock.advance(9 * time.Minute)
	_ = s.Complete(context.Background(), "slow")
	clock.advance(9 * time.Minute)
	if got := reserve(t, s, "slow"); got != Duplicate {
		t.Errorf("Reserve(slow) 9 minutes after Complete = %v, want Duplicate", got)
	}
	if got := reserve(t, s, "other"); got != Reserved {
		t.Errorf("Reserve(other) 18 minutes after its reservation = %v, want Reserved (expired)", got)
	}
}

// Beyond maxEntries the oldest ids are dropped first.
func TestMemoryDedupeStoreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newTestStore(time.Hour, 3)
	for i := range 5 {
		id := fmt.Sprint("evt_", i)
		reserve(t, s, id)
		_ = s.Complete(ctx, id)
	}
	if s.Len() != 3 {
		t.Errorf("Len = %d, want 3", s.Len())
	}
	// The newest three are remembered (answering Duplicate adds nothing)...
	for i := 2; i < 5; i++ {
		if got := reserve(t, s, fmt.Sprint("evt_", i)); got != Duplicate {
			t.Errorf("Reserve(evt_%d) = %v, want Duplicate", i, got)
		}
	}
	// ...and the oldest was forgotten.
	if got := reserve(t, s, "evt_0"); got != Reserved {
		t.Errorf("Reserve(evt_0) = %v, want Reserved", got)
	}
}

// Of many concurrent reservations of one id exactly one succeeds.
func TestMemoryDedupeStoreConcurrentReserve(t *testing.T) {
	t.Parallel()
	s := NewMemoryDedupeStore(0, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := map[Reservation]int{}
	for range 50 {
		wg.Go(func() {
			r, _ := s.Reserve(context.Background(), "evt_1")
			mu.Lock()
			count[r]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if count[Reserved] != 1 || count[InFlight] != 49 {
		t.Errorf("outcomes %v, want one Reserved and 49 InFlight", count)
	}
}

// Reservation values print their meaning.
func TestReservationString(t *testing.T) {
	t.Parallel()
	for r, want := range map[Reservation]string{Reserved: "reserved", Duplicate: "duplicate", InFlight: "in flight", 0: "Reservation(0)"} {
		if got := r.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(r), got, want)
		}
	}
}
