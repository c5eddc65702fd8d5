package auth

import (
	"container/list"
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// DefaultMaxEntries is how many installations a Cache keeps unless
// WithMaxEntries says otherwise.
const DefaultMaxEntries = 10_000

// shardThreshold is the least capacity per shard worth splitting for: below
// 16 shards of this many, a Cache keeps one exact LRU list.
const (
	cacheShards    = 16
	shardThreshold = 64
)

type cacheConfig struct {
	maxEntries int
	sourceOpts []SourceOption
}

// Cache holds the TokenSources of many installations of one plugin, all
// minting with the plugin's secret key, for a backend that acts for thousands
// of installations. It keeps at most its maximum number of entries (10,000 by
// default; concurrent inserts may pass it for a moment), dropping the least
// recently used; a dropped TokenSource that a caller still holds keeps
// working, and the next Source call for its uuid makes a new one.
//
// A backend serving several plugins keeps one Cache per plugin. A Cache is
// safe for concurrent use; lookups lock only one of several shards (from
// 1,024 entries up; below that one exact LRU list).
type Cache struct {
	key    SecretKey
	opts   []SourceOption
	seed   maphash.Seed
	max    int64
	count  atomic.Int64
	shards []cacheShard
}

type cacheShard struct {
	mu    sync.Mutex
	byID  map[string]*list.Element // of *TokenSource
	order list.List                // most recently used first
	_     [64]byte                 // keep shards' locks on separate cache lines
}

// NewCache returns an empty Cache whose TokenSources mint with key. A zero
// key is reported by the first Source call.
func NewCache(key SecretKey, opts ...CacheOption) *Cache {
	cfg := cacheConfig{maxEntries: DefaultMaxEntries}
	for _, o := range opts {
		o.applyCache(&cfg)
	}
	n := 1
	if cfg.maxEntries >= cacheShards*shardThreshold {
		n = cacheShards
	}
	c := &Cache{key: key, opts: cfg.sourceOpts, seed: maphash.MakeSeed(), max: int64(cfg.maxEntries), shards: make([]cacheShard, n)}
	for i := range c.shards {
		c.shards[i].byID = make(map[string]*list.Element)
	}
	return c
}

func (c *Cache) shardIndex(uuid string) int {
	if len(c.shards) == 1 {
		return 0
	}
	return int(maphash.String(c.seed, uuid) % uint64(len(c.shards)))
}

// Source returns the TokenSource of installationUUID, creating it on first
// use. The uuid must be in the RFC 4122 text form. Pass the result to a
// scoped client: client.WithOptions(scribe.WithTokenSource(src)).
func (c *Cache) Source(installationUUID string) (*TokenSource, error) {
	i := c.shardIndex(installationUUID)
	sh := &c.shards[i]
	sh.mu.Lock()
	if el, ok := sh.byID[installationUUID]; ok {
		sh.order.MoveToFront(el)
		sh.mu.Unlock()
		return el.Value.(*TokenSource), nil
	}
	sh.mu.Unlock()

	ts, err := NewTokenSource(c.key, installationUUID, c.opts...)
	if err != nil {
		return nil, err
	}
	sh.mu.Lock()
	if el, ok := sh.byID[installationUUID]; ok { // another goroutine was first
		sh.order.MoveToFront(el)
		sh.mu.Unlock()
		return el.Value.(*TokenSource), nil
	}
	el := sh.order.PushFront(ts)
	sh.byID[installationUUID] = el
	sh.mu.Unlock()
	if c.count.Add(1) > c.max {
		c.evict(i, el)
	}
	return ts, nil
}

// evict drops least recently used entries until the Cache is back within its
// bound, starting with shard start and never dropping keep (the entry just
// added). With one shard this is exact LRU; with several, each shard's
// least recently used entry stands for the whole.
func (c *Cache) evict(start int, keep *list.Element) {
	n := len(c.shards)
	for i := 0; i < 2*n && c.count.Load() > c.max; i++ {
		sh := &c.shards[(start+i)%n]
		var victim *TokenSource
		sh.mu.Lock()
		if last := sh.order.Back(); last != nil && last != keep && c.count.Load() > c.max {
			sh.order.Remove(last)
			victim = last.Value.(*TokenSource)
			delete(sh.byID, victim.uuid)
			c.count.Add(-1)
		}
		sh.mu.Unlock()
		if victim != nil {
			victim.retire()
			i-- // stay on this shard while it has entries to give
		}
	}
}

// Token returns the token of installationUUID: Source, then Token.
func (c *Cache) Token(ctx context.Context, installationUUID string) (string, error) {
	ts, err := c.Source(installationUUID)
	if err != nil {
		return "", err
	}
	return ts.Token(ctx)
}

// Invalidate drops the cached token of installationUUID if it is still token,
// like TokenSource.Invalidate. It does nothing for an uuid the Cache does not
// hold.
func (c *Cache) Invalidate(installationUUID, token string) {
	sh := &c.shards[c.shardIndex(installationUUID)]
	sh.mu.Lock()
	el, ok := sh.byID[installationUUID]
	sh.mu.Unlock()
	if ok {
		el.Value.(*TokenSource).Invalidate(token)
	}
}

// Remove drops the entry of installationUUID, for instance when the
// installation.deleted event arrives.
func (c *Cache) Remove(installationUUID string) {
	sh := &c.shards[c.shardIndex(installationUUID)]
	sh.mu.Lock()
	el, ok := sh.byID[installationUUID]
	if ok {
		sh.order.Remove(el)
		delete(sh.byID, installationUUID)
		c.count.Add(-1)
	}
	sh.mu.Unlock()
	if ok {
		el.Value.(*TokenSource).retire()
	}
}

// Len returns how many installations the Cache holds.
func (c *Cache) Len() int { return int(c.count.Load()) }
