// Package redisdedupe is a webhook.DedupeStore on Redis, for webhook
// receivers that run on several replicas: a delivery that the service
// retries onto another replica runs the event once across all of them.
// It uses the go-redis client, github.com/redis/go-redis/v9:
//
//	import (
//		"github.com/redis/go-redis/v9"
//		"github.com/scribehq/scribe-go/webhook/redisdedupe"
//	)
//
//	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	store, err := redisdedupe.New(rdb)
//	...
//	h, err := webhook.NewHandler(v, fn, webhook.WithDedupeStore(store))
//
// Each webhook-id is one key, so the store works on Redis Cluster
// (redis.NewClusterClient) as on one server. While a delivery runs the
// event, the key holds "p:" and its claim's token and expires after the
// lease; once the event is processed, it holds "d:" and that token and
// expires after the TTL. Every change is one atomic Lua script, and a
// delivery costs two round trips: one to claim, one to settle.
//
// # Lost replies and go-redis's retries
//
// go-redis sends a command again when its reply does not come back (a
// dropped connection, a read timeout; Options.MaxRetries, 3 by default),
// although Redis may have run it. Every script is therefore idempotent per
// claim token, and each Reserve draws a token of its own: a Reserve run
// again finds its own claim and gets it back at once, a Complete run again
// finds the id processed with its own token, and a Release run again finds
// the key gone; both succeed. webhook.ErrClaimLost, and the handler's
// warning, come only when another delivery holds or processed the id.
//
// Keep those retries on: a lost reply then costs one more round trip. With
// retries off (MaxRetries -1) it is an error: the handler answers 503, and a
// claim that Redis did take blocks the service's next attempt (409) until its
// lease ends, 4 minutes by default.
//
// # Persistence
//
// Redis keeps the processed ids in memory. A Redis restarted without
// persistence has forgotten them all: every event the service delivers
// again after the restart (a retry whose first 2xx was lost, say) runs
// again. Run the store's Redis with the append-only file, appendonly yes:
// Redis appends every change to the file and replays it when it starts,
// with every processed id and every claim, each with its expiry. The fsync
// policy decides what a crash may lose. With appendfsync always, Redis
// writes and syncs each change before it replies, so no processed id it
// acknowledged is lost, even to a power cut, at the cost of an fsync on
// every claim and settle. With appendfsync everysec (Redis's default), it
// writes each change before it replies, unless the disk is still busy with
// the last sync (then it holds the write back for up to 2 seconds), and
// syncs once a second: a crash of Redis or of its machine may lose the last
// second or two, and those events run again if delivered again. RDB
// snapshots alone (save) lose every change since the last snapshot.
//
// # Eviction
//
// Redis must never evict these keys before they expire, for the same reason:
// an evicted processed marker lets a retried delivery run its event again,
// and an evicted claim lets a second delivery run it at the same time.
// Persistence keeps the keys across a restart, and noeviction keeps them
// while Redis runs: a store needs both. Run the Redis the store uses with
// maxmemory-policy noeviction (Redis's default; the policy is the whole
// server's, whatever the database number), or give the store a Redis of its
// own. Under allkeys-lru, allkeys-lfu or allkeys-random any key may go, and
// under a volatile-* policy the dedupe keys, which all carry a TTL, are the
// ones evicted. With noeviction a full Redis refuses a new claim, the
// handler answers 503 and the service retries later, while the retry of an
// event already processed is still recognised: nothing runs twice.
//
// # Testing
//
// A receiver's tests can run the store on github.com/alicebob/miniredis/v2,
// a Redis server in the test's process whose Lua runs these scripts (see
// the example of New on miniredis); the store's own contract tests run on
// it in a plain go test, and on a real redis-server in CI.
//
// It is its own Go module, so that the SDK's root module does not require
// go-redis.
package redisdedupe

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/webhook"
)

// DefaultKeyPrefix is the prefix of every key the store writes.
const DefaultKeyPrefix = "scribe:webhook:"

// Store is a webhook.DedupeStore on Redis. It is safe for concurrent use,
// and any number of Stores (in one process or many) on the same Redis and
// key prefix dedupe together.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
	lease  time.Duration
}

var _ webhook.DedupeStore = (*Store)(nil)

// Option configures New; a bad value is an error from New. The zero Option
// does nothing.
type Option struct {
	apply func(*Store) error
}

// WithKeyPrefix sets the prefix of the store's keys (DefaultKeyPrefix,
// which "" selects too). Receivers that must dedupe together need the same
// prefix. On Redis Cluster, keep hash tags ({...}) out of it, or every id
// lands on one slot.
func WithKeyPrefix(p string) Option {
	return Option{func(s *Store) error {
		if p != "" {
			s.prefix = p
		}
		return nil
	}}
}

// WithTTL sets how long a processed id is remembered
// (webhook.DefaultDedupeTTL, 30 hours: longer than the service's whole
// retry schedule), which 0 selects too. A negative d is an error.
func WithTTL(d time.Duration) Option {
	return Option{func(s *Store) error {
		if d < 0 {
			return fmt.Errorf("redisdedupe: WithTTL(%v): the ttl must not be negative; 0 keeps the default", d)
		}
		if d > 0 {
			s.ttl = d
		}
		return nil
	}}
}

// WithLease sets how long an in-flight claim lasts when its holder goes
// silent (webhook.DefaultLease, 4 minutes, or the TTL if shorter), which 0
// selects too: a replica that dies while running an event holds it no
// longer than that, and the service's next attempt after it runs the event
// elsewhere. Keep it longer than your function's longest run: a function
// still running when its lease ends may run at the same time as the next
// attempt's. A claim cannot be renewed. A negative d, or one longer than
// the TTL, is an error.
func WithLease(d time.Duration) Option {
	return Option{func(s *Store) error {
		if d < 0 {
			return fmt.Errorf("redisdedupe: WithLease(%v): the lease must not be negative; 0 keeps the default", d)
		}
		s.lease = d
		return nil
	}}
}

// New returns a Store on rdb (a *redis.Client, *redis.ClusterClient or
// *redis.Ring, or a failover client). A nil rdb or a bad option is an
// error.
func New(rdb redis.UniversalClient, opts ...Option) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("redisdedupe: New: the Redis client is nil")
	}
	s := &Store{rdb: rdb, prefix: DefaultKeyPrefix, ttl: webhook.DefaultDedupeTTL}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(s); err != nil {
			return nil, err
		}
	}
	switch {
	case s.lease > s.ttl:
		return nil, fmt.Errorf("redisdedupe: WithLease(%v): the lease must not outlast the ttl of %v", s.lease, s.ttl)
	case s.lease == 0:
		s.lease = min(webhook.DefaultLease, s.ttl)
	}
	return s, nil
}

// An id's key holds "p:" and the claim's token while claimed, "d:" and the
// token of the claim that completed it once processed. KEYS[1] is the id's
// key and ARGV[1] the claim's token. The scripts are idempotent
// per token: go-redis runs a command again when its reply is lost (a
// dropped connection, a read timeout), and a script run again answers what
// its first run did.

// reserveScript claims KEYS[1] for ARGV[1] for ARGV[2] ms if it is free,
// and answers 1 (reserved), 2 (processed) or 3 (in flight). The token's own
// claim answers 1: it is this Reserve run again. It reads before it writes,
// so that a Redis out of memory, which refuses the write, still answers a
// processed or claimed id.
var reserveScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == 'p:' .. ARGV[1] then return 1 end
if v and string.sub(v, 1, 2) == 'd:' then return 2 end
if v then return 3 end
redis.call('SET', KEYS[1], 'p:' .. ARGV[1], 'PX', ARGV[2])
return 1`)

// completeScript marks KEYS[1] processed by ARGV[1] for ARGV[2] ms if
// ARGV[1]'s claim holds it, or no one does, and answers 1; 1 too if ARGV[1]
// completed it already (this Complete run again); 0 if another claim holds
// it or another delivery completed it.
var completeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == 'd:' .. ARGV[1] then return 1 end
if v and v ~= 'p:' .. ARGV[1] then return 0 end
redis.call('SET', KEYS[1], 'd:' .. ARGV[1], 'PX', ARGV[2])
return 1`)

// releaseScript deletes KEYS[1] if ARGV[1]'s claim holds it; 1 if done or
// the key is gone (this Release run again, or the lease ended and no one
// claimed the id since), 0 if another claim holds it or it is processed.
var releaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 1 end
if v ~= 'p:' .. ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`)

// Reserve implements webhook.DedupeStore in one round trip.
func (s *Store) Reserve(ctx context.Context, id string) (webhook.Reservation, webhook.Claim, error) {
	c := webhook.Claim{ID: id, Token: rand.Text()}
	n, err := reserveScript.Run(ctx, s.rdb, []string{s.prefix + id}, c.Token, s.lease.Milliseconds()).Int()
	if err != nil {
		return 0, webhook.Claim{}, fmt.Errorf("redisdedupe: reserving a webhook-id: %w", err)
	}
	switch n {
	case 1:
		return webhook.Reserved, c, nil
	case 2:
		return webhook.Duplicate, webhook.Claim{}, nil
	case 3:
		return webhook.InFlight, webhook.Claim{}, nil
	}
	return 0, webhook.Claim{}, fmt.Errorf("redisdedupe: reserving a webhook-id: the script answered %d", n)
}

// Complete implements webhook.DedupeStore in one round trip.
func (s *Store) Complete(ctx context.Context, c webhook.Claim) error {
	return s.settle(ctx, completeScript, "completing", c, s.ttl.Milliseconds())
}

// Release implements webhook.DedupeStore in one round trip.
func (s *Store) Release(ctx context.Context, c webhook.Claim) error {
	return s.settle(ctx, releaseScript, "releasing", c)
}

func (s *Store) settle(ctx context.Context, script *redis.Script, op string, c webhook.Claim, args ...any) error {
	n, err := script.Run(ctx, s.rdb, []string{s.prefix + c.ID}, append([]any{c.Token}, args...)...).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisdedupe: %s a claim: %w", op, err)
	case n == 0:
		return webhook.ErrClaimLost
	}
	return nil
}
