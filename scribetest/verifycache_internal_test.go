package scribetest

import (
	"hash/maphash"
	"strings"
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
// a token verified before is found by its maphash, compared, and taken
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
	key := func(i int) string { return "token-" + itoa(int64(i)) }
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

// TestHashCacheComparesTheCredential protects the caches' keying by a
// 64-bit maphash: an entry answers only the credential it was put for (two
// credentials whose hashes meet are told apart, the second missing the
// cache), a credential over maxKeptCredential bytes is kept as its SHA-256
// and still found, and remove leaves another credential's entry alone.
func TestHashCacheComparesTheCredential(t *testing.T) {
	t.Parallel()
	var c hashCache[int]
	short := "dk_live_" + strings.Repeat("a", 40)
	long := strings.Repeat("b", maxKeptCredential+1)
	c.put(short, 1, nil)
	c.put(long, 2, nil)
	if v, ok := c.get(short); !ok || v != 1 {
		t.Errorf("get(short) = %d, %v; want 1, true", v, ok)
	}
	if v, ok := c.get(long); !ok || v != 2 {
		t.Errorf("get(long) = %d, %v; want 2, true", v, ok)
	}
	if e := c.m[maphash.String(credSeed, long)]; len(e.cred) != 32 || strings.Contains(e.cred, "bbbb") {
		t.Errorf("a long credential is kept as %d bytes; want its 32-byte SHA-256", len(e.cred))
	}
	for _, other := range []string{"dk_live_" + strings.Repeat("a", 39) + "b", short[:len(short)-1], long[:len(long)-1] + "c", ""} {
		if _, ok := c.get(other); ok {
			t.Errorf("get(%.20q…) hit; want a miss for a credential never put", other)
		}
	}

	// A credential whose hash meets another's: planted in the slot of
	// short's hash, it does not answer for short, and short's remove does
	// not drop it.
	c.m[maphash.String(credSeed, short)] = credEntry[int]{cred: keptCredential("dk_live_other"), v: 3}
	if v, ok := c.get(short); ok {
		t.Errorf("get(short) = %d from another credential's entry; want a miss", v)
	}
	c.remove(short)
	if n := c.len(); n != 2 {
		t.Errorf("remove(short) dropped another credential's entry: len = %d, want 2", n)
	}
	c.put(short, 4, nil) // the later credential takes the slot
	if v, ok := c.get(short); !ok || v != 4 {
		t.Errorf("after put: get(short) = %d, %v; want 4, true", v, ok)
	}
	c.remove(long)
	if _, ok := c.get(long); ok {
		t.Error("a removed credential is still cached")
	}
}

// TestEqualSecret: equalSecret is string equality.
func TestEqualSecret(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{{"", "", true}, {"abc", "abc", true}, {"abc", "abd", false}, {"abc", "ab", false}, {"ab", "abc", false}, {"xbc", "abc", false},
		{"0123456789abcdefX", "0123456789abcdefX", true}, {"0123456789abcdefX", "0123456789abcdefY", false},
		{"0123456789abcdefX", "0123456709abcdefX", false}, {"01234567", "01234568", false}, {"x1234567", "01234567", false}} {
		if got := equalSecret(tc.a, tc.b); got != tc.want {
			t.Errorf("equalSecret(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
