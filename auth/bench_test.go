package auth_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/scribehq/scribe-go/auth"
)

// Benchmarks of package auth beside their baselines. Run:
//
//	go test -run '^$' -bench . -benchmem -count 5 ./auth/

var sinkString string

// BenchmarkMint: one installation JWT, as a TokenSource mints it.
func BenchmarkMint(b *testing.B) {
	key := mustKey(b, goldenKey)
	b.ReportAllocs()
	for b.Loop() {
		tok, err := auth.Mint(key, goldenUUID, goldenTime)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = tok
	}
}

// BenchmarkBaselineJWTMapClaims: the same token the way a user would write it
// with golang-jwt. Mint must be no slower.
func BenchmarkBaselineJWTMapClaims(b *testing.B) {
	key := []byte(goldenKey)
	b.ReportAllocs()
	for b.Loop() {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"iat": goldenTime.Unix(), "exp": goldenTime.Unix() + 3600, "plugin_installation_uuid": goldenUUID,
		}).SignedString(key)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = tok
	}
}

// BenchmarkBaselineHMAC: HMAC-SHA256 over the same signing input, nothing
// else: the floor under any HS256 minting.
func BenchmarkBaselineHMAC(b *testing.B) {
	key := []byte(goldenKey)
	input := []byte(goldenToken[:len(goldenToken)-44])
	var sum [sha256.Size]byte
	b.ReportAllocs()
	for b.Loop() {
		mac := hmac.New(sha256.New, key)
		mac.Write(input)
		mac.Sum(sum[:0])
	}
}

// BenchmarkVerify: a full check of a valid token with one key.
func BenchmarkVerify(b *testing.B) {
	key := mustKey(b, goldenKey)
	v := auth.NewVerifier(auth.WithClock(func() time.Time { return goldenTime }))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(goldenToken, key); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineJWTParse: the same check with golang-jwt and MapClaims,
// the way a user would write it (without this package's extra rules).
func BenchmarkBaselineJWTParse(b *testing.B) {
	key := []byte(goldenKey)
	p := jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(func() time.Time { return goldenTime }),
		jwt.WithIssuedAt(), jwt.WithExpirationRequired(), jwt.WithLeeway(time.Minute))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Parse(goldenToken, func(*jwt.Token) (any, error) { return key, nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func cachedSource(b *testing.B) *auth.TokenSource {
	ts, err := auth.NewTokenSource(mustKey(b, goldenKey), goldenUUID)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ts.Token(context.Background()); err != nil {
		b.Fatal(err)
	}
	return ts
}

// BenchmarkTokenSourceCached: the hot path of every request, sequential.
// Target: under 50 ns and 0 allocs/op.
func BenchmarkTokenSourceCached(b *testing.B) {
	ts := cachedSource(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tok, err := ts.Token(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = tok
	}
}

// BenchmarkTokenSourceCachedParallel: the hot path from every CPU at once;
// ns/op falling with more CPUs shows there is no contention.
func BenchmarkTokenSourceCachedParallel(b *testing.B) {
	ts := cachedSource(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := ts.Token(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCacheToken: Cache.Token for one of 10,000 warm installations, in
// parallel: a shard's read lock, a map lookup, the CLOCK bit, then the cached
// token.
func BenchmarkCacheToken(b *testing.B) {
	c := auth.NewCache(mustKey(b, goldenKey))
	const n = 10_000
	uuids := make([]string, n)
	for i := range uuids {
		uuids[i] = uuidN(i)
		if _, err := c.Token(context.Background(), uuids[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := 0
		for pb.Next() {
			if _, err := c.Token(ctx, uuids[i%n]); err != nil {
				b.Fatal(err)
			}
			i += 7919
		}
	})
}

// warmCache returns a Cache holding the tokens of n installations, and their
// uuids.
func warmCache(b *testing.B, n int) (*auth.Cache, []string) {
	c := auth.NewCache(mustKey(b, goldenKey), auth.WithMaxEntries(n))
	uuids := make([]string, n)
	for i := range uuids {
		uuids[i] = uuidN(i)
		if _, err := c.Token(context.Background(), uuids[i]); err != nil {
			b.Fatal(err)
		}
	}
	return c, uuids
}

// BenchmarkCacheTokenHit: Cache.Token for one of 10,000 warm installations,
// sequential: the per-request cost for a backend acting for many
// installations. Target: at most 100 ns and 0 allocs/op; compare with
// BenchmarkBaselineMapHit in the same run.
func BenchmarkCacheTokenHit(b *testing.B) {
	const n = 10_000
	c, uuids := warmCache(b, n)
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		tok, err := c.Token(ctx, uuids[i%n])
		if err != nil {
			b.Fatal(err)
		}
		sinkString = tok
		i += 7919
	}
}

// BenchmarkBaselineMapHit: the least a cache of tokens can do per hit, a
// read-locked lookup in a plain map from uuid to token, over the same uuids.
func BenchmarkBaselineMapHit(b *testing.B) {
	const n = 10_000
	key := mustKey(b, goldenKey)
	var mu sync.RWMutex
	m := make(map[string]string)
	uuids := make([]string, n)
	for i := range uuids {
		uuids[i] = uuidN(i)
		tok, err := auth.Mint(key, uuids[i], time.Now())
		if err != nil {
			b.Fatal(err)
		}
		m[uuids[i]] = tok
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		mu.RLock()
		tok := m[uuids[i%n]]
		mu.RUnlock()
		sinkString = tok
		i += 7919
	}
}
