package auth

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRefreshAhead is how long before expiry a TokenSource replaces its
// token unless WithRefreshAhead says otherwise.
const DefaultRefreshAhead = 5 * time.Minute

// DefaultJitter is the most a TokenSource adds at random to the refresh-ahead
// time unless WithJitter says otherwise.
const DefaultJitter = time.Minute

// minRemaining is how long a token must still be valid for a caller to be
// handed it while another goroutine mints its replacement.
const minRemaining = 10 * time.Second

// minUse is the least time a token is used before it is refreshed.
const minUse = time.Minute

// sourceConfig is what a TokenSource needs besides its uuid. A Cache shares
// one among all its sources.
type sourceConfig struct {
	key          SecretKey
	now          func() time.Time // the Clock's Now
	refreshAhead time.Duration
	jitter       time.Duration
	// spread is set by a Cache: a token minted when none is cached (first use,
	// or after Invalidate) is refreshed at a random point of its whole usable
	// life, so that installations that start together refresh apart.
	spread bool
	onMint func() // test hook: called once per mint, under the mint lock
}

// newSourceConfig applies opts to the defaults and checks the result.
func newSourceConfig(key SecretKey, opts []SourceOption) (*sourceConfig, error) {
	if key.IsZero() {
		return nil, keyError("secret key", "is the zero value; create it with ParseSecretKey")
	}
	cfg := &sourceConfig{key: key, now: time.Now, refreshAhead: DefaultRefreshAhead, jitter: DefaultJitter}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.refreshAhead+cfg.jitter > TokenLifetime-minUse {
		return nil, fmt.Errorf("auth: refresh-ahead (%v) plus jitter (%v) must leave a token at least %v of use out of its %v", cfg.refreshAhead, cfg.jitter, minUse, TokenLifetime)
	}
	return cfg, nil
}

// TokenSource supplies the installation JWT of one installation. It mints a
// token on first use and hands out the same token until its refresh time, a
// little before expiry: exp minus the refresh-ahead (5 minutes by default)
// minus a random jitter (up to 1 minute by default, drawn per token). It
// reads its clock (time.Now, or the one given with WithClock) on every call.
//
// Only one goroutine mints at a time. While it does, the others are handed
// the current token if it is still valid for at least 10 seconds, and wait
// for the new one otherwise. If the service refuses a token all the same (a
// suspended host, a clock stepped), it answers 401, on which the client calls
// Invalidate and retries with a new token.
//
// TokenSource satisfies scribe.TokenSource and scribe.TokenInvalidator. It is
// safe for concurrent use, and prints as its installation uuid only.
type TokenSource struct {
	cfg  *sourceConfig
	uuid string
	mu   sync.Mutex                 // held while minting
	cur  atomic.Pointer[tokenEntry] // nil until the first mint and after Invalidate
}

// tokenEntry is a minted token; it is immutable once published.
type tokenEntry struct {
	token     string
	refreshAt time.Time
	expiresAt time.Time
}

// NewTokenSource returns a TokenSource minting tokens for installationUUID
// with key. It refuses the zero key, a uuid not in the RFC 4122 text form
// and a bad option; nothing is minted until the first Token call.
func NewTokenSource(key SecretKey, installationUUID string, opts ...SourceOption) (*TokenSource, error) {
	if err := checkInstallationUUID(installationUUID); err != nil {
		return nil, err
	}
	cfg, err := newSourceConfig(key, opts)
	if err != nil {
		return nil, err
	}
	return &TokenSource{cfg: cfg, uuid: installationUUID}, nil
}

// InstallationUUID returns the installation the tokens speak for.
func (s *TokenSource) InstallationUUID() string { return s.uuid }

// Token returns a token valid for at least the next request: the cached one
// until its refresh time, then a new one. Minting needs no network, so ctx
// only matters when Token must wait for a mint (the first, or one in
// progress): an already cancelled ctx then returns its error.
func (s *TokenSource) Token(ctx context.Context) (string, error) {
	now := s.cfg.now()
	e := s.cur.Load()
	if e != nil {
		if now.Before(e.refreshAt) {
			return e.token, nil
		}
		// Due. Mint unless another goroutine already is; while it does, hand
		// out the current token if it is still good.
		if s.mu.TryLock() {
			defer s.mu.Unlock()
			return s.mintLocked(ctx)
		}
		if now.Before(e.expiresAt.Add(-minRemaining)) {
			return e.token, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mintLocked(ctx)
}

// mintLocked mints and publishes a token unless the current one is not yet
// due; s.mu must be held. The checks in NewTokenSource and NewCache leave
// nothing for Mint to refuse.
func (s *TokenSource) mintLocked(ctx context.Context) (string, error) {
	now := s.cfg.now()
	prev := s.cur.Load()
	if prev != nil && now.Before(prev.refreshAt) {
		return prev.token, nil // someone minted between our check and the lock
	}
	iat := now.Unix()
	token, err := mint(s.cfg.key, s.uuid, iat)
	if err != nil {
		return "", err // the clock reads a time no verifier accepts
	}
	if s.cfg.onMint != nil {
		s.cfg.onMint()
	}
	if hook, ok := ctx.Value(mintHookKey{}).(func(context.Context, string)); ok {
		hook(ctx, s.uuid)
	}
	exp := time.Unix(iat+tokenLifetimeSeconds, 0)
	var refreshAt time.Time
	if s.cfg.spread && prev == nil {
		// Anywhere from minUse after issue to the latest refresh time: a
		// thousand installations first used in the same second are refreshed
		// over the next hour, and the per-token jitter keeps them apart.
		window := TokenLifetime - s.cfg.refreshAhead - minUse
		refreshAt = time.Unix(iat, 0).Add(minUse + rand.N(window+1))
	} else {
		refreshAt = exp.Add(-s.cfg.refreshAhead - rand.N(s.cfg.jitter+1))
	}
	s.cur.Store(&tokenEntry{token: token, refreshAt: refreshAt, expiresAt: exp})
	return token, nil
}

// Invalidate drops the cached token if it is still token, so that the next
// Token call mints a new one. A client calls it with a token the service
// refused (401); when many requests are refused at once, only the first call
// drops the token and the rest find a newer one and do nothing.
func (s *TokenSource) Invalidate(token string) {
	if e := s.cur.Load(); e != nil && e.token == token {
		s.cur.CompareAndSwap(e, nil)
	}
}

// String returns "auth.TokenSource(<installation uuid>)"; the token never prints.
func (s *TokenSource) String() string {
	if s == nil {
		return "auth.TokenSource(nil)"
	}
	return "auth.TokenSource(" + s.uuid + ")"
}

// GoString returns the same as String, so %#v hides the token too.
func (s *TokenSource) GoString() string { return s.String() }

// LogValue implements slog.LogValuer with the String form.
func (s *TokenSource) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Format writes the String form for every fmt verb.
func (s *TokenSource) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s.String())
		return
	}
	_, _ = f.Write([]byte(s.String()))
}

// mintHookKey is the context key of ContextWithMintHook's hook.
type mintHookKey struct{}

// ContextWithMintHook returns a copy of ctx that makes a TokenSource (one of
// a Cache too) asked for a token with it, or with a context derived from it,
// call hook once for each token it mints then, with that context and the
// installation's uuid, after the token is made and before Token returns it.
// A token handed out from the cache calls nothing. It is the seam of
// metrics that count mints (otelscribe's scribe.auth.token.mints): a
// scribe.Client asks its token source with the operation's context, which
// an OperationHook may derive with this. hook must be quick and must not
// call the TokenSource; it is never given the token or the key. A hook
// already in ctx is called too, before hook; a nil hook returns ctx.
func ContextWithMintHook(ctx context.Context, hook func(ctx context.Context, installationUUID string)) context.Context {
	if hook == nil {
		return ctx
	}
	if prev, ok := ctx.Value(mintHookKey{}).(func(context.Context, string)); ok {
		next := hook
		hook = func(ctx context.Context, uuid string) { prev(ctx, uuid); next(ctx, uuid) }
	}
	return context.WithValue(ctx, mintHookKey{}, hook)
}
