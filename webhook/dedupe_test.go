package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/dedupetest"
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

// TestMemoryDedupeStoreContract: the memory store keeps the DedupeStore
// contract (leases, fencing, TTL, atomic Reserve) on a fake clock.
func TestMemoryDedupeStoreContract(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	dedupetest.Run(t, dedupetest.Config{
		New: func(t *testing.T, lease, ttl time.Duration) webhook.DedupeStore {
			return webhook.NewMemoryDedupeStoreForTest(ttl, 100, lease, clock.now)
		},
		Lease:   4 * time.Minute,
		TTL:     30 * time.Hour,
		Advance: clock.advance,
	})
}

// TestMemoryDedupeStoreDefaultLease: an abandoned claim is taken over after
// DefaultLease, long before the TTL.
func TestMemoryDedupeStoreDefaultLease(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s := webhook.NewMemoryDedupeStoreForTest(0, 0, 0, clock.now)
	ctx := context.Background()
	if r, _, _ := s.Reserve(ctx, "evt"); r != webhook.Reserved {
		t.Fatalf("first Reserve = %v", r)
	}
	clock.advance(webhook.DefaultLease - time.Second)
	if r, _, _ := s.Reserve(ctx, "evt"); r != webhook.InFlight {
		t.Fatalf("Reserve a second before the lease ends = %v, want InFlight", r)
	}
	clock.advance(time.Second)
	if r, _, _ := s.Reserve(ctx, "evt"); r != webhook.Reserved {
		t.Fatalf("Reserve when the lease ends = %v, want Reserved", r)
	}
}

// Beyond maxEntries the oldest ids are dropped first.
func TestMemoryDedupeStoreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := webhook.NewMemoryDedupeStore(time.Hour, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		_, c, _ := s.Reserve(ctx, fmt.Sprint("evt_", i))
		if err := s.Complete(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if s.Len() != 3 {
		t.Errorf("Len = %d, want 3", s.Len())
	}
	for i := 2; i < 5; i++ {
		if r, _, _ := s.Reserve(ctx, fmt.Sprint("evt_", i)); r != webhook.Duplicate {
			t.Errorf("Reserve(evt_%d) = %v, want Duplicate", i, r)
		}
	}
	if r, _, _ := s.Reserve(ctx, "evt_0"); r != webhook.Reserved {
		t.Errorf("Reserve(evt_0) = %v, want Reserved (the oldest is forgotten)", r)
	}
}

// Reservation values print their meaning.
func TestReservationString(t *testing.T) {
	t.Parallel()
	for r, want := range map[webhook.Reservation]string{webhook.Reserved: "reserved", webhook.Duplicate: "duplicate", webhook.InFlight: "in flight", 0: "Reservation(0)"} {
		if got := r.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(r), got, want)
		}
	}
}

// A full store forgets processed ids, oldest first, and never a claim still
// being processed: evicting it would let the sender's retry claim the event
// again and run it twice at once.
func TestMemoryDedupeStoreFullKeepsRunningClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s := webhook.NewMemoryDedupeStoreForTest(time.Hour, 3, time.Minute, clock.now)

	_, running, _ := s.Reserve(ctx, "evt_running") // the oldest entry, still processing
	for _, id := range []string{"evt_done1", "evt_done2"} {
		_, c, _ := s.Reserve(ctx, id)
		if err := s.Complete(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if r, _, err := s.Reserve(ctx, "evt_new"); r != webhook.Reserved || err != nil {
		t.Fatalf("Reserve(evt_new) on a full store = %v, %v; want Reserved (a processed id makes room)", r, err)
	}
	if r, _, _ := s.Reserve(ctx, "evt_running"); r != webhook.InFlight {
		t.Errorf("Reserve(evt_running) = %v, want InFlight: the running claim must outlive the processed ids", r)
	}
	if r, _, _ := s.Reserve(ctx, "evt_done2"); r != webhook.Duplicate {
		t.Errorf("Reserve(evt_done2) = %v, want Duplicate: only the oldest processed id goes", r)
	}
	if err := s.Complete(ctx, running); err != nil {
		t.Errorf("Complete of the running claim = %v, want nil", err)
	}
}

// When only claims in their lease remain, a new id is refused with
// ErrDedupeStoreFull instead of evicting one; once a lease is over, its
// claim makes room again.
func TestMemoryDedupeStoreFullOfRunningClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s := webhook.NewMemoryDedupeStoreForTest(time.Hour, 2, time.Minute, clock.now)
	claims := map[string]webhook.Claim{}
	for _, id := range []string{"evt_a", "evt_b"} {
		_, claims[id], _ = s.Reserve(ctx, id)
	}
	r, _, err := s.Reserve(ctx, "evt_c")
	if !errors.Is(err, webhook.ErrDedupeStoreFull) || r == webhook.Reserved {
		t.Fatalf("Reserve(evt_c) on a store full of running claims = %v, %v; want ErrDedupeStoreFull", r, err)
	}
	for id := range claims {
		if r, _, _ := s.Reserve(ctx, id); r != webhook.InFlight {
			t.Errorf("Reserve(%s) = %v, want InFlight: no running claim may be evicted", id, r)
		}
	}
	if err := s.Complete(ctx, claims["evt_a"]); err != nil {
		t.Fatal(err)
	}
	if r, _, err := s.Reserve(ctx, "evt_c"); r != webhook.Reserved || err != nil {
		t.Fatalf("Reserve(evt_c) after a claim completed = %v, %v; want Reserved", r, err)
	}
	if r, _, _ := s.Reserve(ctx, "evt_b"); r != webhook.InFlight {
		t.Errorf("Reserve(evt_b) = %v, want InFlight (the processed evt_a made room)", r)
	}
	clock.advance(time.Minute) // evt_b's and evt_c's leases are over
	if r, _, err := s.Reserve(ctx, "evt_d"); r != webhook.Reserved || err != nil {
		t.Errorf("Reserve(evt_d) after the leases ended = %v, %v; want Reserved (an abandoned claim makes room)", r, err)
	}
}

// TestClaimLeaseZeroIsTheDefault protects one meaning for a zero lease, as
// in redisdedupe.WithLease: WithClaimLease(0) keeps DefaultLease (or the
// ttl, if shorter); a negative lease, or one past the ttl, is an error.
func TestClaimLeaseZeroIsTheDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lease, ttl, want time.Duration
	}{
		{0, 24 * time.Hour, webhook.DefaultLease},
		{time.Minute, 24 * time.Hour, time.Minute},
		{24 * time.Hour, 24 * time.Hour, 24 * time.Hour},
		{0, time.Minute, time.Minute},
	} {
		clock := &fakeClock{t: time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)}
		s, err := webhook.NewMemoryDedupeStore(tc.ttl, 10, webhook.WithClaimLease(tc.lease))
		if err != nil {
			t.Fatal(err)
		}
		webhook.SetStoreClock(s, clock.now)
		ctx := context.Background()
		if _, _, err := s.Reserve(ctx, "evt_a"); err != nil {
			t.Fatal(err)
		}
		clock.advance(tc.want - time.Second)
		if r, _, _ := s.Reserve(ctx, "evt_a"); r != webhook.InFlight {
			t.Errorf("lease %s, ttl %s: Reserve a second before %s = %v, want InFlight", tc.lease, tc.ttl, tc.want, r)
		}
		clock.advance(time.Second)
		if r, _, _ := s.Reserve(ctx, "evt_a"); r == webhook.InFlight {
			t.Errorf("lease %s, ttl %s: Reserve at %s = InFlight, want the lease over", tc.lease, tc.ttl, tc.want)
		}
	}
}

// TestMemoryDedupeStoreRefusesBadArguments: a negative ttl, size or lease,
// or a lease past the ttl, is an error, never taken for a default.
func TestMemoryDedupeStoreRefusesBadArguments(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		ttl  time.Duration
		max  int
		opts []webhook.MemoryStoreOption
	}{
		"negative ttl":       {ttl: -time.Second},
		"negative size":      {max: -1},
		"negative lease":     {opts: []webhook.MemoryStoreOption{webhook.WithClaimLease(-time.Second)}},
		"lease past the ttl": {ttl: time.Hour, opts: []webhook.MemoryStoreOption{webhook.WithClaimLease(2 * time.Hour)}},
	} {
		if s, err := webhook.NewMemoryDedupeStore(tc.ttl, tc.max, tc.opts...); err == nil || s != nil {
			t.Errorf("%s: NewMemoryDedupeStore = %v, %v; want an error", name, s, err)
		}
	}
}
