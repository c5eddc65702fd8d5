package scribetest

import (
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
)

// jwtFixture is a server with one installation and a token for it.
type jwtFixture struct {
	s     *Server
	clock *FakeClock
	key   auth.SecretKey
	uuid  string
	token string
}

func newJWTFixture(tb testing.TB) jwtFixture {
	tb.Helper()
	clock := NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))
	s, err := NewUnstartedServer(WithClock(clock))
	if err != nil {
		tb.Fatal(err)
	}
	dev, err := s.CreateDeveloper(UserParams{FirstName: "Ada"})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := s.CreatePlugin(dev.User.ID, PluginParams{Name: "p", Permissions: scribe.Permissions{User: scribe.PermissionRead}})
	if err != nil {
		tb.Fatal(err)
	}
	key, err := s.CreateSecretKey(p.ID, "")
	if err != nil {
		tb.Fatal(err)
	}
	u, err := s.CreateUser(UserParams{FirstName: "Grace"})
	if err != nil {
		tb.Fatal(err)
	}
	in, err := s.Install(p.ID, u.ID)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := auth.Mint(key.Key, in.UUID, clock.Now())
	if err != nil {
		tb.Fatal(err)
	}
	return jwtFixture{s: s, clock: clock, key: key.Key, uuid: in.UUID, token: tok}
}

// TestVerifyCacheHit: a token verified once is not verified again while
// nothing has changed: with a verifier that would refuse it, the cached
// token still passes, while a token never seen is refused.
func TestVerifyCacheHit(t *testing.T) {
	t.Parallel()
	f := newJWTFixture(t)
	if _, p := f.s.authenticateJWT(f.token); p != nil {
		t.Fatalf("first verification: %v", p)
	}
	if n := f.s.verified.len(); n != 1 {
		t.Fatalf("cache holds %d tokens, want 1", n)
	}
	// A verifier whose clock is a day ahead refuses every token as expired.
	f.s.verifier = auth.NewVerifier(auth.WithClock(func() time.Time { return f.clock.Now().Add(24 * time.Hour) }))
	if _, p := f.s.authenticateJWT(f.token); p != nil {
		t.Errorf("cached token: %v, want it accepted from the cache", p)
	}
	f.clock.Advance(time.Second)
	other, err := auth.Mint(f.key, f.uuid, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, p := f.s.authenticateJWT(other); p == nil || p.code != scribe.CodeTokenExpired {
		t.Errorf("a token never verified: %v, want the verifier's token_expired", p)
	}
}

// TestVerifyCacheHitAllocates protects the cached JWT's per-request cost:
// a token verified before is hashed from hashKey's stack buffer and taken
// with its cached principal, without an allocation.
func TestVerifyCacheHitAllocates(t *testing.T) {
	f := newJWTFixture(t)
	if _, p := f.s.authenticateJWT(f.token); p != nil {
		t.Fatalf("first verification: %v", p)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = f.s.authenticateJWT(f.token) }); n != 0 {
		t.Errorf("a cached JWT of %d bytes costs %v allocations, want 0", len(f.token), n)
	}
}

// TestVerifyCacheBound: the cache never holds more than maxVerifiedTokens
// tokens; when full, expired tokens go first.
func TestVerifyCacheBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	var c verifyCache
	fresh := &verifiedToken{iat: now, exp: now.Add(time.Hour)}
	expired := &verifiedToken{iat: now.Add(-3 * time.Hour), exp: now.Add(-2 * time.Hour)}
	key := func(i int) [32]byte { return hashKey(itoa(int64(i))) }
	for i := range maxVerifiedTokens {
		v := fresh
		if i%2 == 0 {
			v = expired
		}
		c.put(key(i), v, now)
	}
	if n := c.len(); n != maxVerifiedTokens {
		t.Fatalf("len = %d, want %d", n, maxVerifiedTokens)
	}
	c.put(key(-1), fresh, now)
	if n := c.len(); n != maxVerifiedTokens/2+1 {
		t.Errorf("after an insert into a full cache: len = %d, want %d (the expired half dropped)", n, maxVerifiedTokens/2+1)
	}
	for i := range 2 * maxVerifiedTokens {
		c.put(key(maxVerifiedTokens+i), fresh, now)
		if n := c.len(); n > maxVerifiedTokens {
			t.Fatalf("len = %d, over the bound %d", n, maxVerifiedTokens)
		}
	}
	if _, ok := c.get(key(3*maxVerifiedTokens - 1)); !ok {
		t.Error("the last token put is not cached")
	}
}

// TestDeveloperCacheHit protects the developer-key fast path: a key that
// authenticated before is answered with the same principal and no
// allocation, until a user or developer key is added, when it is derived
// from the store again; an unknown key is refused and not cached.
func TestDeveloperCacheHit(t *testing.T) {
	s, err := NewUnstartedServer()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := s.CreateDeveloper(UserParams{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	key := dev.Key.Reveal()
	first, prob := s.authenticateDeveloper(key)
	if prob != nil {
		t.Fatalf("first authentication: %v", prob)
	}
	if first.kind != kindDeveloper || first.developer.ID != dev.User.ID {
		t.Fatalf("principal = %+v, want developer %d", first, dev.User.ID)
	}
	again, _ := s.authenticateDeveloper(key)
	if again != first {
		t.Error("a second authentication with the same key derived a new principal; want the cached one")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = s.authenticateDeveloper(key) }); n != 0 {
		t.Errorf("a cached developer key costs %v allocations, want 0", n)
	}

	if _, err := s.CreateDeveloper(UserParams{FirstName: "Grace"}); err != nil {
		t.Fatal(err)
	}
	after, prob := s.authenticateDeveloper(key)
	if prob != nil {
		t.Fatalf("after a user was added: %v", prob)
	}
	if after == first {
		t.Error("the principal cached before a user was added was reused; want it derived again")
	}
	if after.developer.ID != dev.User.ID {
		t.Errorf("after a user was added: developer %d, want %d", after.developer.ID, dev.User.ID)
	}

	if _, prob := s.authenticateDeveloper("dk_live_not-a-key"); prob == nil || prob.status != 401 {
		t.Fatalf("unknown key: problem %v, want 401", prob)
	}
	if n := s.developers.len(); n != 1 {
		t.Errorf("developer cache holds %d entries, want 1 (unknown keys are not cached)", n)
	}
}
