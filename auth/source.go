package auth

import (
	"context"
	"errors"
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

type sourceConfig struct {
	clock        func() time.Time
	customClock  bool // set by WithClock: refresh by reading the clock, not by timers
	refreshAhead time.Duration
	jitter       time.Duration
	afterFunc    func(time.Duration, func()) stopper // test hook; default time.AfterFunc
	onMint       func()                              // test hook: called once per mint
}

// stopper is the part of *time.Timer a TokenSource uses.
type stopper interface{ Stop() bool }

func realAfterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// TokenSource supplies the installation JWT of one installation. It mints a
// token on first use and hands out the same token until its refresh time, a
// little before expiry: exp minus the refresh-ahead (5 minutes by default)
// minus a random jitter (up to 1 minute by default, drawn per token). Only one
// goroutine mints at a time; the others keep using the current token if it is
// still valid, or wait for the new one.
//
// The hot path reads no clock: a timer marks the token due at its refresh
// time, so a cached Token call is one atomic load. Timers follow the
// monotonic clock; after a suspend or a wall-clock step the token may be due
// late, and the service refuses it with 401, on which the client calls
// Invalidate and retries with a new token. With WithClock the source reads
// the given clock on every call instead of using timers.
//
// TokenSource satisfies scribe.TokenSource and scribe.TokenInvalidator. It is
// safe for concurrent use, and prints as its installation uuid only.
type TokenSource struct {
	key  SecretKey
	uuid string
	cfg  sourceConfig

	cur atomic.Pointer[tokenEntry] // nil until the first mint and after Invalidate
	mu  sync.Mutex                 // held while minting
}

// tokenEntry is immutable once published, but for fresh.
type tokenEntry struct {
	token     string
	refreshAt time.Time
	expiresAt time.Time
	// fresh is true from publication until the refresh timer fires; when it
	// is false (always, with WithClock), Token compares the clock with refreshAt.
	fresh atomic.Bool
	timer stopper // nil when no timer runs
}

func (e *tokenEntry) stopTimer() {
	if e != nil && e.timer != nil {
		e.timer.Stop()
	}
}

// NewTokenSource returns a TokenSource minting tokens for installationUUID
// with key. It checks the key and the uuid (RFC 4122 text form) and the
// options; nothing is minted until the first Token call.
func NewTokenSource(key SecretKey, installationUUID string, opts ...SourceOption) (*TokenSource, error) {
	if key.IsZero() {
		return nil, keyError("secret key", "is the zero value; create it with ParseSecretKey")
	}
	if err := checkInstallationUUID(installationUUID); err != nil {
		return nil, err
	}
	cfg := sourceConfig{clock: time.Now, refreshAhead: DefaultRefreshAhead, jitter: DefaultJitter}
	for _, o := range opts {
		o.applySource(&cfg)
	}
	if cfg.afterFunc == nil && !cfg.customClock {
		cfg.afterFunc = realAfterFunc
	}
	switch {
	case cfg.refreshAhead < 0:
		return nil, errors.New("auth: the refresh-ahead time must not be negative")
	case cfg.jitter < 0:
		return nil, errors.New("auth: the jitter must not be negative; 0 disables it")
	case cfg.refreshAhead+cfg.jitter > TokenLifetime-minUse:
		return nil, fmt.Errorf("auth: refresh-ahead (%v) plus jitter (%v) must leave a token at least %v of use out of its %v", cfg.refreshAhead, cfg.jitter, minUse, TokenLifetime)
	}
	return &TokenSource{key: key, uuid: installationUUID, cfg: cfg}, nil
}

// minUse is the least time a token is used before it is refreshed.
const minUse = time.Minute

// InstallationUUID returns the installation the tokens speak for.
func (s *TokenSource) InstallationUUID() string { return s.uuid }

// Token returns a token valid for at least the next request. On the hot path
// it is one atomic load, without locks, clock reads or allocations. Minting
// needs no network, so ctx only matters when Token must wait for a mint in
// progress: an already cancelled ctx then returns its error.
func (s *TokenSource) Token(ctx context.Context) (string, error) {
	if e := s.cur.Load(); e != nil && e.fresh.Load() {
		return e.token, nil
	}
	return s.slowToken(ctx)
}

func (s *TokenSource) slowToken(ctx context.Context) (string, error) {
	e := s.cur.Load()
	if e != nil {
		now := s.cfg.clock()
		if now.Before(e.refreshAt) {
			return e.token, nil
		}
		// Due: if someone else is minting and this token is still good, do
		// not wait for them.
		if !s.mu.TryLock() {
			if now.Before(e.expiresAt.Add(-minRemaining)) {
				return e.token, nil
			}
			return s.refresh(ctx)
		}
		defer s.mu.Unlock()
		return s.mintLocked(), nil
	}
	return s.refresh(ctx)
}

// refresh waits for the mint lock and mints unless another goroutine has
// just done so.
func (s *TokenSource) refresh(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mintLocked(), nil
}

// mintLocked mints and publishes a token unless the current one is not yet
// due; s.mu must be held. The checks in NewTokenSource leave nothing for Mint
// to refuse.
func (s *TokenSource) mintLocked() string {
	now := s.cfg.clock()
	if e := s.cur.Load(); e != nil && now.Before(e.refreshAt) {
		return e.token // someone minted between our check and the lock
	}
	iat := now.Unix()
	token := mint(s.key, s.uuid, iat)
	if s.cfg.onMint != nil {
		s.cfg.onMint()
	}
	expiresAt := time.Unix(iat+tokenLifetimeSeconds, 0)
	ahead := s.cfg.refreshAhead
	if s.cfg.jitter > 0 {
		ahead += rand.N(s.cfg.jitter + 1)
	}
	e := &tokenEntry{token: token, refreshAt: expiresAt.Add(-ahead), expiresAt: expiresAt}
	if s.cfg.afterFunc != nil {
		if d := e.refreshAt.Sub(now); d > 0 {
			e.fresh.Store(true)
			e.timer = s.cfg.afterFunc(d, func() { e.fresh.Store(false) })
		}
	}
	s.cur.Swap(e).stopTimer()
	return token
}

// retire stops the refresh timer, so that a TokenSource a Cache dropped is
// not kept in memory by it. The source keeps working, reading the clock.
func (s *TokenSource) retire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.cur.Load(); e != nil {
		e.fresh.Store(false)
		e.stopTimer()
	}
}

// Invalidate drops the cached token if it is still token, so that the next
// Token call mints a new one. A client calls it with a token the service
// refused (401); when many requests are refused at once, only the first call
// drops the token and the rest find a newer one and do nothing.
func (s *TokenSource) Invalidate(token string) {
	if e := s.cur.Load(); e != nil && e.token == token && s.cur.CompareAndSwap(e, nil) {
		e.stopTimer()
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
