package webhook_test

import (
	"context"
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
	s := webhook.NewMemoryDedupeStore(time.Hour, 3)
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
