package auth

import (
	"errors"
	"fmt"
	"time"
)

// Clock tells the time. A TokenSource reads time.Now unless WithClock gives
// it another, such as a test's scribetest.FakeClock; webhook.WithClock and
// scribetest.WithClock take the same. Now must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}

// SourceOption configures a TokenSource: given to NewTokenSource, or to
// every TokenSource of a Cache through WithSourceOptions. A bad value is
// an error from NewTokenSource or NewCache. The zero SourceOption does
// nothing.
type SourceOption struct {
	apply func(*sourceConfig) error
}

// CacheOption configures a Cache; a bad value is an error from NewCache.
// The zero CacheOption does nothing.
type CacheOption struct {
	apply func(*cacheConfig) error
}

// WithClock makes a TokenSource read the time from c instead of time.Now,
// on every Token call; tests pass a fake clock, such as a
// scribetest.FakeClock (whose Server hands out token sources already on
// it: TokenSource, TokenCache, InstallationClient). A nil c is an error.
func WithClock(c Clock) SourceOption {
	return SourceOption{func(cfg *sourceConfig) error {
		if c == nil {
			return errors.New("auth: WithClock: the clock is nil; leave the option out for time.Now")
		}
		cfg.now = c.Now
		return nil
	}}
}

// WithRefreshAhead sets how long before its expiry a TokenSource replaces a
// token. The default is DefaultRefreshAhead (5 minutes); 0 uses a token up
// to its expiry. A negative d, or one that with the jitter leaves a token
// less than a minute of use, is an error.
func WithRefreshAhead(d time.Duration) SourceOption {
	return SourceOption{func(cfg *sourceConfig) error {
		if d < 0 {
			return fmt.Errorf("auth: WithRefreshAhead(%v): the refresh-ahead time must not be negative", d)
		}
		cfg.refreshAhead = d
		return nil
	}}
}

// WithJitter sets the most a TokenSource adds, at random per token, to the
// refresh-ahead time, so that thousands of tokens minted together are not
// all refreshed together. The default is DefaultJitter (1 minute); 0
// disables it. A negative d is an error.
func WithJitter(d time.Duration) SourceOption {
	return SourceOption{func(cfg *sourceConfig) error {
		if d < 0 {
			return fmt.Errorf("auth: WithJitter(%v): the jitter must not be negative; 0 disables it", d)
		}
		cfg.jitter = d
		return nil
	}}
}

// WithMaxEntries bounds how many installations a Cache keeps; entries not
// used recently are dropped beyond it. The default is DefaultMaxEntries
// (10,000), which 0 selects too; a negative n is an error.
func WithMaxEntries(n int) CacheOption {
	return CacheOption{func(c *cacheConfig) error {
		if n < 0 {
			return fmt.Errorf("auth: WithMaxEntries(%d): the maximum must not be negative; 0 keeps the default of %d", n, DefaultMaxEntries)
		}
		if n > 0 {
			c.maxEntries = n
		}
		return nil
	}}
}

// WithSourceOptions applies opts to every TokenSource a Cache creates.
func WithSourceOptions(opts ...SourceOption) CacheOption {
	return CacheOption{func(c *cacheConfig) error {
		c.sourceOpts = append(c.sourceOpts, opts...)
		return nil
	}}
}
