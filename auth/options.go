package auth

import "time"

// VerifierOption configures a Verifier. WithLeeway and WithClock return one.
type VerifierOption interface{ applyVerifier(*Verifier) }

// SourceOption configures a TokenSource. WithClock, WithRefreshAhead and
// WithJitter return one; pass them to a Cache with WithSourceOptions.
type SourceOption interface{ applySource(*sourceConfig) }

// CacheOption configures a Cache. WithMaxEntries and WithSourceOptions
// return one.
type CacheOption interface{ applyCache(*cacheConfig) }

type verifierOptionFunc func(*Verifier)

func (f verifierOptionFunc) applyVerifier(v *Verifier) { f(v) }

type sourceOptionFunc func(*sourceConfig)

func (f sourceOptionFunc) applySource(c *sourceConfig) { f(c) }

type cacheOptionFunc func(*cacheConfig)

func (f cacheOptionFunc) applyCache(c *cacheConfig) { f(c) }

// ClockOption sets the clock of a Verifier or a TokenSource; WithClock
// returns it. It is both a VerifierOption and a SourceOption.
type ClockOption struct{ now func() time.Time }

func (o ClockOption) applyVerifier(v *Verifier) {
	if o.now != nil {
		v.clock = o.now
	}
}

func (o ClockOption) applySource(c *sourceConfig) {
	if o.now != nil {
		c.clock = o.now
	}
}

// WithClock makes a Verifier or a TokenSource read the time from now instead
// of time.Now; tests pass a fake clock's Now method, such as
// auth.WithClock(clock.Now) for a scribetest.FakeClock (whose Server hands
// out token sources already on it: TokenSource, TokenCache,
// InstallationClient). A nil now keeps time.Now. A TokenSource reads its
// clock on every Token call.
func WithClock(now func() time.Time) ClockOption { return ClockOption{now: now} }

// WithLeeway sets how far iat may lie in the future and exp in the past
// before a Verifier refuses the token, to absorb clock skew. The default is
// DefaultLeeway (60 seconds, as the service uses); a negative d counts as 0.
func WithLeeway(d time.Duration) VerifierOption {
	return verifierOptionFunc(func(v *Verifier) { v.leeway = max(d, 0) })
}

// WithRefreshAhead sets how long before its expiry a TokenSource replaces a
// token. The default is DefaultRefreshAhead (5 minutes). NewTokenSource
// refuses a negative d, or one that with the jitter leaves a token less than
// a minute of use.
func WithRefreshAhead(d time.Duration) SourceOption {
	return sourceOptionFunc(func(c *sourceConfig) { c.refreshAhead = d })
}

// WithJitter sets the most a TokenSource adds, at random per token, to the
// refresh-ahead time, so that thousands of tokens minted together are not
// all refreshed together. The default is DefaultJitter (1 minute); 0
// disables it. NewTokenSource refuses a negative d.
func WithJitter(d time.Duration) SourceOption {
	return sourceOptionFunc(func(c *sourceConfig) { c.jitter = d })
}

// WithMaxEntries bounds how many installations a Cache keeps; entries not
// used recently are dropped beyond it. The default is DefaultMaxEntries
// (10,000); n < 1 keeps the default.
func WithMaxEntries(n int) CacheOption {
	return cacheOptionFunc(func(c *cacheConfig) {
		if n >= 1 {
			c.maxEntries = n
		}
	})
}

// WithSourceOptions applies opts to every TokenSource a Cache creates.
func WithSourceOptions(opts ...SourceOption) CacheOption {
	return cacheOptionFunc(func(c *cacheConfig) { c.sourceOpts = append(c.sourceOpts, opts...) })
}
