// Package dedupetest checks that a webhook.DedupeStore keeps the contract
// the webhook handler relies on: atomic reservation, leases that expire,
// claims fenced by their token, settling idempotent per claim, and ids
// remembered for the TTL. Run it from
// a test of your own store:
//
//	func TestMyStore(t *testing.T) {
//		dedupetest.Run(t, dedupetest.Config{
//			New: func(t *testing.T, lease, ttl time.Duration) webhook.DedupeStore {
//				return newMyStore(t, lease, ttl)
//			},
//			Lease: 200 * time.Millisecond,
//			TTL:   time.Second,
//		})
//	}
//
// The memory store and the Redis store (module webhook/redisdedupe) pass it.
package dedupetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

// Config says how to make the store under test and how its time passes.
type Config struct {
	// New returns an empty store whose claims last lease and whose processed
	// ids are remembered for ttl. Each call must give a store of its own
	// (or one whose ids do not meet another's).
	New func(t *testing.T, lease, ttl time.Duration) webhook.DedupeStore
	// Lease and TTL are passed to New; TTL must be more than twice Lease.
	Lease, TTL time.Duration
	// Advance moves the store's clock by d. Nil: time.Sleep, for stores on
	// the real clock (keep Lease and TTL short then).
	Advance func(d time.Duration)
}

// Run runs every check as a subtest of t.
func Run(t *testing.T, cfg Config) {
	t.Helper()
	if cfg.Advance == nil {
		cfg.Advance = time.Sleep
	}
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Config)
	}{
		{"Lifecycle", lifecycle},
		{"LeaseExpires", leaseExpires},
		{"FencedByToken", fenced},
		{"CompleteAfterLeaseWithNoRival", completeAfterLease},
		{"SettleAgain", settleAgain},
		{"TTL", ttl},
		{"ConcurrentReserve", concurrentReserve},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, cfg) })
	}
}

var ctx = context.Background()

func reserve(t *testing.T, s webhook.DedupeStore, id string, want webhook.Reservation) webhook.Claim {
	t.Helper()
	r, c, err := s.Reserve(ctx, id)
	if err != nil {
		t.Fatalf("Reserve(%q): %v", id, err)
	}
	if r != want {
		t.Fatalf("Reserve(%q) = %v, want %v", id, r, want)
	}
	if r == webhook.Reserved && (c.ID != id || c.Token == "") {
		t.Fatalf("Reserve(%q) gave the claim %+v; want its id and a token", id, c)
	}
	return c
}

func check(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// lifecycle: reserved, in flight while held, released and reserved again
// with a new token, completed and then a duplicate that Release cannot undo.
func lifecycle(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	c1 := reserve(t, s, "evt_a", webhook.Reserved)
	reserve(t, s, "evt_a", webhook.InFlight)
	reserve(t, s, "evt_b", webhook.Reserved) // ids are independent
	check(t, "Release(held claim)", s.Release(ctx, c1), nil)
	c2 := reserve(t, s, "evt_a", webhook.Reserved)
	if c2.Token == c1.Token {
		t.Fatalf("two reservations of one id share the token %q", c1.Token)
	}
	check(t, "Complete(held claim)", s.Complete(ctx, c2), nil)
	reserve(t, s, "evt_a", webhook.Duplicate)
	check(t, "Release(completed claim)", s.Release(ctx, c2), webhook.ErrClaimLost)
	reserve(t, s, "evt_a", webhook.Duplicate)
}

// leaseExpires: a claim whose holder goes silent can be taken after the
// lease, and not before.
func leaseExpires(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	reserve(t, s, "evt_hung", webhook.Reserved)
	cfg.Advance(cfg.Lease / 4)
	reserve(t, s, "evt_hung", webhook.InFlight)
	cfg.Advance(cfg.Lease)
	reserve(t, s, "evt_hung", webhook.Reserved)
}

// fenced: a holder whose lease expired can neither release nor complete the
// newer holder's claim.
func fenced(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	old := reserve(t, s, "evt_f", webhook.Reserved)
	cfg.Advance(cfg.Lease + cfg.Lease/4)
	cur := reserve(t, s, "evt_f", webhook.Reserved)
	check(t, "Release(expired claim)", s.Release(ctx, old), webhook.ErrClaimLost)
	reserve(t, s, "evt_f", webhook.InFlight) // the newer claim still holds
	check(t, "Complete(expired claim)", s.Complete(ctx, old), webhook.ErrClaimLost)
	reserve(t, s, "evt_f", webhook.InFlight)
	check(t, "Complete(current claim)", s.Complete(ctx, cur), nil)
	reserve(t, s, "evt_f", webhook.Duplicate)
}

// completeAfterLease: a holder that finishes after its lease, while no one
// else claimed the id, still records it as processed.
func completeAfterLease(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	c := reserve(t, s, "evt_late", webhook.Reserved)
	cfg.Advance(cfg.Lease + cfg.Lease/4)
	check(t, "Complete(expired, unrivalled claim)", s.Complete(ctx, c), nil)
	reserve(t, s, "evt_late", webhook.Duplicate)
}

// settleAgain: a Complete or Release called again with the claim it
// succeeded with (a store's client resending a command whose reply was lost)
// succeeds again and changes nothing; another claim's Complete still fails.
func settleAgain(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	c := reserve(t, s, "evt_again", webhook.Reserved)
	check(t, "Complete", s.Complete(ctx, c), nil)
	check(t, "Complete again", s.Complete(ctx, c), nil)
	reserve(t, s, "evt_again", webhook.Duplicate)
	check(t, "Complete(another claim of the processed id)", s.Complete(ctx, webhook.Claim{ID: c.ID, Token: c.Token + "x"}), webhook.ErrClaimLost)

	r := reserve(t, s, "evt_released", webhook.Reserved)
	check(t, "Release", s.Release(ctx, r), nil)
	check(t, "Release again", s.Release(ctx, r), nil)
	reserve(t, s, "evt_released", webhook.Reserved)
	check(t, "Release again, after another delivery claimed the id", s.Release(ctx, r), webhook.ErrClaimLost)
}

// ttl: a processed id is remembered for the TTL, then forgotten.
func ttl(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	c := reserve(t, s, "evt_t", webhook.Reserved)
	check(t, "Complete", s.Complete(ctx, c), nil)
	cfg.Advance(cfg.TTL / 2)
	reserve(t, s, "evt_t", webhook.Duplicate)
	cfg.Advance(cfg.TTL/2 + cfg.Lease)
	reserve(t, s, "evt_t", webhook.Reserved)
}

// concurrentReserve: of 50 concurrent reservations of one id, one wins.
func concurrentReserve(t *testing.T, cfg Config) {
	s := cfg.New(t, cfg.Lease, cfg.TTL)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count = map[webhook.Reservation]int{}
		errs  []error
	)
	for range 50 {
		wg.Go(func() {
			r, _, err := s.Reserve(ctx, "evt_c")
			mu.Lock()
			defer mu.Unlock()
			count[r]++
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 || count[webhook.Reserved] != 1 || count[webhook.InFlight] != 49 {
		t.Fatalf("outcomes %v (errors %v), want one Reserved and 49 InFlight", count, errs)
	}
}
