package auth

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"
)

// DefaultMaxEntries is how many installations a Cache keeps unless
// WithMaxEntries says otherwise.
const DefaultMaxEntries = 10_000

type cacheConfig struct {
	maxEntries int
	sourceOpts []SourceOption
}

// Cache holds the TokenSources of many installations of one plugin, all
// minting with the plugin's secret key, for a backend that acts for thousands
// of installations. It keeps at most its maximum number of entries (10,000 by
// default); when it is full, a new entry replaces the least recently used
// one. A dropped TokenSource that a caller still holds keeps working, and the
// next Source call for its uuid makes a new one.
//
// The first token of each installation (and the first after Invalidate) is
// refreshed at a random point of its usable life, so that installations that
// start together refresh apart instead of all at once an hour later.
//
// A backend serving several plugins keeps one Cache per plugin. A Cache is
// safe for concurrent use.
type Cache struct {
	cfg     *sourceConfig
	entries *lru.Cache[string, *TokenSource]
}

// NewCache returns an empty Cache whose TokenSources mint with key. It
// refuses the zero key and a bad option.
func NewCache(key SecretKey, opts ...CacheOption) (*Cache, error) {
	cc := cacheConfig{maxEntries: DefaultMaxEntries}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(&cc); err != nil {
			return nil, err
		}
	}
	cfg, err := newSourceConfig(key, cc.sourceOpts)
	if err != nil {
		return nil, err
	}
	cfg.spread = true
	// lru.New refuses only a size below 1, which WithMaxEntries never sets.
	entries, _ := lru.New[string, *TokenSource](cc.maxEntries)
	return &Cache{cfg: cfg, entries: entries}, nil
}

// Source returns the TokenSource of installationUUID, creating it on first
// use. The uuid must be in the RFC 4122 text form. Pass the result to a
// scoped client: client.WithOptions(scribe.WithTokenSource(src)).
func (c *Cache) Source(installationUUID string) (*TokenSource, error) {
	if ts, ok := c.entries.Get(installationUUID); ok {
		return ts, nil
	}
	if err := checkInstallationUUID(installationUUID); err != nil {
		return nil, err
	}
	ts := &TokenSource{cfg: c.cfg, uuid: installationUUID}
	// Another goroutine may have added the installation since Get: then its
	// source is the one, so that an installation has one token at a time.
	if prev, ok, _ := c.entries.PeekOrAdd(installationUUID, ts); ok {
		return prev, nil
	}
	return ts, nil
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
// hold, and does not count as a use of the entry.
func (c *Cache) Invalidate(installationUUID, token string) {
	if ts, ok := c.entries.Peek(installationUUID); ok {
		ts.Invalidate(token)
	}
}

// Remove drops the entry of installationUUID, and with it its cached token,
// for instance when the installation.deleted event arrives. A TokenSource a
// caller still holds keeps working; the next Source call makes a new one.
// An uuid the Cache does not hold is ignored.
func (c *Cache) Remove(installationUUID string) { c.entries.Remove(installationUUID) }

// Len returns how many installations the Cache holds.
func (c *Cache) Len() int { return c.entries.Len() }
