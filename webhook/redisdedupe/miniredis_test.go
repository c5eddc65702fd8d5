package redisdedupe_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/dedupetest"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// TestContractOnMiniredis: the store keeps the DedupeStore contract on
// miniredis, a Redis server in the test's process whose Lua interpreter
// (gopher-lua) runs the store's scripts. It needs no redis-server, so it
// runs in a plain go test; the contract's leases and TTLs pass at once,
// since miniredis's clock is moved by FastForward.
func TestContractOnMiniredis(t *testing.T) {
	m := miniredis.RunT(t)
	var n atomic.Int64
	dedupetest.Run(t, dedupetest.Config{
		New: func(t *testing.T, lease, ttl time.Duration) webhook.DedupeStore {
			rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
			t.Cleanup(func() { rdb.Close() })
			p := prefix(t) + strconv.FormatInt(n.Add(1), 10) + ":"
			return newStore(t, rdb, redisdedupe.WithKeyPrefix(p), redisdedupe.WithLease(lease), redisdedupe.WithTTL(ttl))
		},
		Lease:   webhook.DefaultLease,
		TTL:     webhook.DefaultDedupeTTL,
		Advance: m.FastForward,
	})
}

// TestNewRefusesBadArguments: a nil client, a negative TTL or lease, or a
// lease past the TTL, is an error from New, never taken for a default.
func TestNewRefusesBadArguments(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	t.Cleanup(func() { rdb.Close() })
	for name, tc := range map[string]struct {
		rdb  redis.UniversalClient
		opts []redisdedupe.Option
	}{
		"nil client":         {rdb: nil},
		"negative ttl":       {rdb: rdb, opts: []redisdedupe.Option{redisdedupe.WithTTL(-time.Second)}},
		"negative lease":     {rdb: rdb, opts: []redisdedupe.Option{redisdedupe.WithLease(-time.Second)}},
		"lease past the ttl": {rdb: rdb, opts: []redisdedupe.Option{redisdedupe.WithTTL(time.Minute), redisdedupe.WithLease(time.Hour)}},
	} {
		if s, err := redisdedupe.New(tc.rdb, tc.opts...); err == nil || s != nil {
			t.Errorf("%s: New = %v, %v; want an error", name, s, err)
		}
	}
	if _, err := redisdedupe.New(rdb, redisdedupe.WithTTL(time.Minute), redisdedupe.Option{}); err != nil {
		t.Errorf("a short TTL with the default lease: %v, want the lease cut to the TTL", err)
	}
}
