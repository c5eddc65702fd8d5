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
	refreshAhead time.Duration
	jitter       time.Duration
	onMint       func() // test hook: called once per mint
}

// TokenSource supplies the installation JWT of one installation. It mints a
// token on first use and hands out the same token until its refresh time, a
// little before expiry: exp minus the refresh-ahead (5 minutes by default)
// minus a random jitter (up to 1 minute by default, drawn per token). Only one
// goroutine mints at a time; the others keep using the current token if it is
// still valid, or wait for the new one.
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

// tokenEntry is immutable once published.
type tokenEntry struct {
	token     string
	refreshAt time.Time
	expiresAt time.Time
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
	switch {
	case cfg.refreshAhead < 0:
		return nil, errors.New("auth: the refresh-ahead time must not be negative")
	case cfg.jitter < 0:
		return nil, errors.New("auth: the jitter must not be negative; 0 disables it")
	case cfg.refreshAhead+cfg.jitter >= TokenLifetime:
		return nil, fmt.Errorf("auth: refresh-ahead (%v) plus jitter (%v) must be shorter than the token lifetime (%v)", cfg.refreshAhead, cfg.jitter, TokenLifetime)
	}
	return &TokenSource{key: key, uuid: installationUUID, cfg: cfg}, nil
}

// InstallationUUID returns the installation the tokens speak for.
func (s *TokenSource) InstallationUUID() string { return s.uuid }

// Token returns a token valid for at least the next request. On the hot path
// it is one atomic load and a clock read, without locks or allocations.
// Minting needs no network, so ctx only matters when Token must wait for a
// mint in progress: an already cancelled ctx then returns its error.
func (s *TokenSource) Token(ctx context.Context) (string, error) {
	e := s.cur.Load()
	if e != nil {
		now := s.cfg.clock()
		if now.Before(e.refreshAt) {
			return e.token, nil
		}
		// Past the refresh time: if someone else is minting and this token
		// is still good, do not wait for them.
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
	if e := s.cur.Load(); e != nil && s.cfg.clock().Before(e.refreshAt) {
		return e.token, nil
	}
	return s.mintLocked(), nil
}

// mintLocked mints and publishes a token; s.mu must be held. The checks in
// NewTokenSource leave nothing for Mint to refuse.
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
	s.cur.Store(&tokenEntry{token: token, refreshAt: expiresAt.Add(-ahead), expiresAt: expiresAt})
	return token
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
