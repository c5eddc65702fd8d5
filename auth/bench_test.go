package auth_test

import (
	"context"
	"testing"

	"github.com/scribehq/scribe-go/auth"
)

// Benchmarks of what a user of package auth pays: minting and
// handing out a cached token. Run:
//
//	go test -run '^$' -bench . -benchmem ./auth/

var sinkString string

// BenchmarkMint: one installation JWT, as a TokenSource mints it about once
// an hour per installation.
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

// BenchmarkTokenSourceCached: TokenSource.Token when the token is cached,
// as every request of an installation client calls it.
func BenchmarkTokenSourceCached(b *testing.B) {
	ts, err := auth.NewTokenSource(mustKey(b, goldenKey), goldenUUID)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := ts.Token(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tok, err := ts.Token(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sinkString = tok
	}
}

// warmCache returns a Cache holding the tokens of n installations, and their
// uuids.
func warmCache(b *testing.B, n int) (*auth.Cache, []string) {
	c, err := auth.NewCache(mustKey(b, goldenKey), auth.WithMaxEntries(n))
	if err != nil {
		b.Fatal(err)
	}
	uuids := make([]string, n)
	for i := range uuids {
		uuids[i] = uuidN(i)
		if _, err := c.Token(context.Background(), uuids[i]); err != nil {
			b.Fatal(err)
		}
	}
	return c, uuids
}

// BenchmarkCacheToken: Cache.Token for one of 10,000 installations whose
// tokens are cached, as a backend acting for many installations calls it on
// every request.
func BenchmarkCacheToken(b *testing.B) {
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

// BenchmarkCacheTokenParallel: the same from every CPU at once, which shows
// what the Cache's one lock costs when many requests need a token together.
func BenchmarkCacheTokenParallel(b *testing.B) {
	const n = 10_000
	c, uuids := warmCache(b, n)
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
