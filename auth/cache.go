package auth

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// DefaultMaxEntries is how many installations a Cache keeps unless
// WithMaxEntries says otherwise.
const DefaultMaxEntries = 10_000

// A Cache of at least cacheShards*shardThreshold entries is split into
// cacheShards shards; below that it keeps one exact CLOCK ring.
const (
	cacheShards    = 16 // Cache.shard takes 4 bits of a hash
	shardThreshold = 64
)

type cacheConfig struct {
	maxEntries int
	sourceOpts []SourceOption
}

// Cache holds the TokenSources of many installations of one plugin, all
// minting with the plugin's secret key, for a backend that acts for thousands
// of installations. It keeps at most its maximum number of entries (10,000 by
// default; concurrent inserts may pass it for a moment), dropping one not used
// recently (CLOCK, an approximation of least recently used); a dropped
// TokenSource that a caller still holds keeps working, and the next Source
// call for its uuid makes a new one.
//
// An entry is its uuid, its token and about 100 bytes: no timer, no
// goroutine. The sources of a Cache share one configuration, and the first
// token of each installation (and the first after Invalidate) is refreshed at
// a random point of its usable life, so installations that start together
// refresh apart instead of all at once an hour later.
//
// A backend serving several plugins keeps one Cache per plugin. A Cache is
// safe for concurrent use; a lookup takes the read lock of one of several
// shards (from 1,024 entries up; below that a single ring).
type Cache struct {
	cfg    *sourceConfig
	cfgErr error  // reported by Source: NewCache returns no error
	seed   uint64 // mixes shard choice, so it cannot be predicted from uuids
	max    int64
	count  atomic.Int64
	shards []cacheShard
}

type cacheShard struct {
	mu   sync.RWMutex
	byID map[string]*TokenSource
	ring []*TokenSource // CLOCK order; ts.slot is the index
	hand int
	_    [64]byte // keep shards' locks on separate cache lines
}

// NewCache returns an empty Cache whose TokenSources mint with key. A zero
// key or a bad option is reported by the first Source call.
func NewCache(key SecretKey, opts ...CacheOption) *Cache {
	cc := cacheConfig{maxEntries: DefaultMaxEntries}
	for _, o := range opts {
		o.applyCache(&cc)
	}
	n := 1
	if cc.maxEntries >= cacheShards*shardThreshold {
		n = cacheShards
	}
	c := &Cache{seed: rand.Uint64(), max: int64(cc.maxEntries), shards: make([]cacheShard, n)}
	c.cfg, c.cfgErr = newSourceConfig(key, cc.sourceOpts)
	if c.cfg != nil {
		c.cfg.spread = true
	}
	for i := range c.shards {
		c.shards[i].byID = make(map[string]*TokenSource)
	}
	return c
}

// shard picks the shard of uuid from its last 8 characters (the random end
// of an RFC 4122 uuid, and the changing end of sequential ones), mixed with
// the Cache's seed and a multiplication: the map inside the shard hashes the
// whole uuid again, so a full hash here would be paid twice. A string that is
// not a uuid lands anywhere; Source refuses it.
func (c *Cache) shard(uuid string) (int, *cacheShard) {
	if len(c.shards) == 1 || len(uuid) < 8 {
		return 0, &c.shards[0]
	}
	tail := binary.LittleEndian.Uint64([]byte(uuid[len(uuid)-8:]))
	i := int(((tail ^ c.seed) * 0x9e3779b97f4a7c15) >> 60) // top 4 bits: 16 shards
	return i, &c.shards[i]
}

// lookup returns the entry of uuid, or nil.
func (sh *cacheShard) lookup(uuid string) *TokenSource {
	sh.mu.RLock()
	ts := sh.byID[uuid]
	sh.mu.RUnlock()
	return ts
}

// touch marks ts as recently used. It writes only when the bit is clear, so
// a hot entry's cache line stays shared between CPUs.
func (ts *TokenSource) touch() *TokenSource {
	if !ts.ref.Load() {
		ts.ref.Store(true)
	}
	return ts
}

// Source returns the TokenSource of installationUUID, creating it on first
// use. The uuid must be in the RFC 4122 text form. Pass the result to a
// scoped client: client.WithOptions(scribe.WithTokenSource(src)).
func (c *Cache) Source(installationUUID string) (*TokenSource, error) {
	i, sh := c.shard(installationUUID)
	if ts := sh.lookup(installationUUID); ts != nil {
		return ts.touch(), nil
	}
	return c.insert(i, sh, installationUUID)
}

// insert adds an entry for uuid. When the Cache is full it takes the slot of
// a victim of the same shard, so a new entry waits a whole turn of the hand
// before it can be dropped.
func (c *Cache) insert(i int, sh *cacheShard, uuid string) (*TokenSource, error) {
	if c.cfgErr != nil {
		return nil, c.cfgErr
	}
	if err := checkInstallationUUID(uuid); err != nil {
		return nil, err
	}
	ts := &TokenSource{cfg: c.cfg, uuid: uuid}
	sh.mu.Lock()
	if old := sh.byID[uuid]; old != nil { // another goroutine was first
		sh.mu.Unlock()
		return old.touch(), nil
	}
	grew := true
	if c.count.Load() >= c.max && len(sh.ring) > 0 {
		h := sh.victim(nil)
		delete(sh.byID, sh.ring[h].uuid)
		ts.slot = int32(h)
		sh.ring[h] = ts
		grew = false
	} else {
		ts.slot = int32(len(sh.ring))
		sh.ring = append(sh.ring, ts)
	}
	sh.byID[uuid] = ts
	sh.mu.Unlock()
	if grew && c.count.Add(1) > c.max {
		c.evict(i, ts)
	}
	return ts, nil
}

// victim advances the hand to an entry not used since the hand last passed,
// clearing the bits of those it passes, and returns its index; the hand is
// left after it. It never returns skip (nil, or an entry just added) unless
// skip is the only entry. sh.mu must be held and the ring not empty. After
// two turns (entries used again while the hand sweeps) it takes the entry at
// the hand.
func (sh *cacheShard) victim(skip *TokenSource) int {
	n := len(sh.ring)
	for range 2*n + 1 {
		if sh.hand >= n {
			sh.hand = 0
		}
		ts := sh.ring[sh.hand]
		if ts != skip && !ts.ref.Load() {
			break
		}
		if ts != skip {
			ts.ref.Store(false)
		}
		sh.hand++
	}
	if sh.hand >= n {
		sh.hand = 0
	}
	if sh.ring[sh.hand] == skip && n > 1 {
		sh.hand = (sh.hand + 1) % n
	}
	h := sh.hand
	sh.hand++
	return h
}

// removeAt takes the entry at index h out of the ring (the caller deletes
// it from byID): the last entry takes its place. sh.mu must be held.
func (sh *cacheShard) removeAt(h int) {
	last := len(sh.ring) - 1
	moved := sh.ring[last]
	sh.ring[h] = moved
	moved.slot = int32(h)
	sh.ring[last] = nil
	sh.ring = sh.ring[:last]
}

// evict drops entries until the Cache is back within its bound, starting
// with shard start and never dropping keep (the entry just added). It runs
// when concurrent inserts, or an empty shard, passed the bound.
func (c *Cache) evict(start int, keep *TokenSource) {
	n := len(c.shards)
	for i := 0; i < 2*n && c.count.Load() > c.max; i++ {
		sh := &c.shards[(start+i)%n]
		sh.mu.Lock()
		if len(sh.ring) > 0 && c.count.Load() > c.max && !(len(sh.ring) == 1 && sh.ring[0] == keep) {
			h := sh.victim(keep)
			delete(sh.byID, sh.ring[h].uuid)
			sh.removeAt(h)
			c.count.Add(-1)
			i-- // stay on this shard while it has entries to give
		}
		sh.mu.Unlock()
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
	_, sh := c.shard(installationUUID)
	if ts := sh.lookup(installationUUID); ts != nil {
		ts.Invalidate(token)
	}
}

// Remove drops the entry of installationUUID, and with it its cached token,
// for instance when the installation.deleted event arrives. A TokenSource a
// caller still holds keeps working; the next Source call makes a new one.
// An uuid the Cache does not hold is ignored.
func (c *Cache) Remove(installationUUID string) {
	_, sh := c.shard(installationUUID)
	sh.mu.Lock()
	if ts := sh.byID[installationUUID]; ts != nil {
		delete(sh.byID, installationUUID)
		sh.removeAt(int(ts.slot))
		c.count.Add(-1)
	}
	sh.mu.Unlock()
}

// Len returns how many installations the Cache holds.
func (c *Cache) Len() int { return int(c.count.Load()) }
