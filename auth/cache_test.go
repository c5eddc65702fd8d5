package auth_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
)

func uuidN(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012x", i) }

func newCache(t testing.TB, key auth.SecretKey, opts ...auth.CacheOption) *auth.Cache {
	t.Helper()
	c, err := auth.NewCache(key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func source(t *testing.T, c *auth.Cache, uuid string) *auth.TokenSource {
	t.Helper()
	ts, err := c.Source(uuid)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestCacheSourceIsShared: the same uuid gives the same TokenSource, so
// every scoped client of an installation shares one cached token.
func TestCacheSourceIsShared(t *testing.T) {
	t.Parallel()
	c := newCache(t, newKey(t))
	a, b := source(t, c, goldenUUID), source(t, c, goldenUUID)
	if a != b {
		t.Error("two Source calls for one uuid gave different TokenSources")
	}
	if source(t, c, uuidN(1)) == a {
		t.Error("two uuids share a TokenSource")
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
}

// TestCacheEvictsLeastRecentlyUsed: beyond the maximum the least recently
// used entry goes, and only it; using an entry protects it.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newCache(t, newKey(t), auth.WithMaxEntries(3))
	first := source(t, c, uuidN(1))
	second := source(t, c, uuidN(2))
	third := source(t, c, uuidN(3))
	source(t, c, uuidN(1))           // 2 is now the least recently used
	fourth := source(t, c, uuidN(4)) // and is dropped
	if c.Len() != 3 {
		t.Fatalf("Len = %d, want 3", c.Len())
	}
	for i, kept := range map[int]*auth.TokenSource{1: first, 3: third, 4: fourth} {
		if source(t, c, uuidN(i)) != kept {
			t.Errorf("installation %d was evicted instead of the least recently used", i)
		}
	}
	if source(t, c, uuidN(2)) == second {
		t.Error("the least recently used entry was kept beyond the maximum")
	}
	if c.Len() != 3 {
		t.Errorf("Len = %d, want 3", c.Len())
	}
}

// TestCacheBound: however many installations pass through, a Cache never
// holds more than its maximum, also under concurrent use.
func TestCacheBound(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 100, 5000} {
		c := newCache(t, newKey(t), auth.WithMaxEntries(limit))
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 3 * limit {
					if _, err := c.Source(uuidN(g*1_000_000 + i)); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if n := c.Len(); n != limit {
			t.Errorf("max %d: Len = %d after %d installations", limit, n, 12*limit)
		}
	}
}

// TestCacheConcurrentFirstUse: goroutines racing for a new uuid all get the
// same TokenSource.
func TestCacheConcurrentFirstUse(t *testing.T) {
	t.Parallel()
	c := newCache(t, newKey(t))
	got := make([]*auth.TokenSource, 32)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], _ = c.Source(goldenUUID) })
	}
	wg.Wait()
	for _, ts := range got {
		if ts == nil || ts != got[0] {
			t.Fatal("concurrent first use produced different TokenSources")
		}
	}
}

// TestCacheOneMintPerInstallation: goroutines asking a Cache at once for the
// tokens of the same installations cause exactly one mint per installation,
// and all of them get that installation's one token.
func TestCacheOneMintPerInstallation(t *testing.T) {
	t.Parallel()
	var mints atomic.Int64
	c := newCache(t, newKey(t), auth.WithSourceOptions(auth.WithMintHook(func() { mints.Add(1) })))
	const installations, callers = 4, 32
	tokens := make([][installations]string, callers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			<-start
			for i := range installations {
				tok, err := c.Token(context.Background(), uuidN(i))
				if err != nil {
					t.Error(err)
				}
				tokens[g][i] = tok
			}
		})
	}
	close(start)
	wg.Wait()
	if n := mints.Load(); n != installations {
		t.Errorf("%d mints for %d installations asked by %d goroutines at once; want %d", n, installations, callers, installations)
	}
	for g := range tokens {
		if tokens[g] != tokens[0] {
			t.Fatalf("caller %d got tokens %v, caller 0 got %v; want the same", g, tokens[g], tokens[0])
		}
	}
}

// TestCacheToken: Cache.Token gives a token of the installation, signed with
// the cache's key, on the clock given through WithSourceOptions.
func TestCacheToken(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	clock := newFakeClock()
	c := newCache(t, key, auth.WithSourceOptions(auth.WithClock(clock)))
	tok, err := c.Token(context.Background(), goldenUUID)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := jwtverify.New(clock.Now, jwtverify.DefaultLeeway).Verify(tok, key)
	if err != nil || claims.InstallationUUID != goldenUUID || !claims.IssuedAt.Equal(goldenTime) {
		t.Errorf("Verify = %+v, %v", claims, err)
	}

	clock.Set(goldenTime.Add(time.Second))
	c.Invalidate(goldenUUID, tok)
	if again, _ := c.Token(context.Background(), goldenUUID); again == tok {
		t.Error("Cache.Invalidate did not drop the token")
	}
	c.Invalidate(uuidN(99), tok) // unknown: nothing happens, nothing is created
	if c.Len() != 1 {
		t.Errorf("Len = %d, want 1", c.Len())
	}
	c.Remove(goldenUUID)
	if c.Len() != 0 {
		t.Errorf("Len after Remove = %d, want 0", c.Len())
	}
}

// TestCacheRefusesBadInput: a malformed uuid is an error from Source and
// leaves nothing behind; a zero key is an error from NewCache.
func TestCacheRefusesBadInput(t *testing.T) {
	t.Parallel()
	c := newCache(t, newKey(t))
	if _, err := c.Source("not-a-uuid"); !errors.Is(err, auth.ErrInvalidInstallationUUID) {
		t.Errorf("Source(bad uuid) error = %v", err)
	}
	if _, err := c.Token(context.Background(), ""); !errors.Is(err, auth.ErrInvalidInstallationUUID) {
		t.Errorf("Token(empty uuid) error = %v", err)
	}
	if c.Len() != 0 {
		t.Errorf("Len = %d after refused uuids, want 0", c.Len())
	}
	if c, err := auth.NewCache(auth.SecretKey{}); !errors.Is(err, auth.ErrInvalidKey) || c != nil {
		t.Errorf("NewCache(zero key) = %v, %v; want ErrInvalidKey", c, err)
	}
}

// TestCacheSpreadsRefreshes protects the Cache against a thundering herd:
// 100,000 installations first used in the same second (a cold start) are
// refreshed spread over the following hour, not within one minute an hour
// later. A fake clock walks two hours in two-minute steps, every installation
// asks for its token at every step, and the mints of each step are counted.
// With a refresh time drawn only from the last minute of the usable life (the
// per-token jitter alone), every installation would be refreshed within one
// or two steps.
func TestCacheSpreadsRefreshes(t *testing.T) {
	n := 100_000
	if testing.Short() || raceEnabled {
		n = 10_000
	}
	clock := newFakeClock()
	var mints atomic.Int64
	c := newCache(t, newKey(t), auth.WithMaxEntries(n),
		auth.WithSourceOptions(auth.WithClock(clock), auth.WithMintHook(func() { mints.Add(1) })))
	uuids := make([]string, n)
	for i := range uuids {
		uuids[i] = uuidN(i)
	}
	ctx := context.Background()
	askAll := func() {
		for _, u := range uuids {
			if _, err := c.Token(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
	}
	askAll()
	if got := mints.Load(); got != int64(n) {
		t.Fatalf("cold start: %d mints, want %d", got, n)
	}
	const step = 2 * time.Minute
	var buckets []int64
	for at := step; at <= 2*time.Hour; at += step {
		before := mints.Load()
		clock.Set(goldenTime.Add(at))
		askAll()
		buckets = append(buckets, mints.Load()-before)
	}
	var most, total int64
	for _, b := range buckets {
		most = max(most, b)
		total += b
	}
	// Uniform over the 54 minutes of usable life would be n/27 a step.
	mean := float64(n) / 27
	t.Logf("%d installations: %d refreshes in 2 h; busiest 2-minute step %d (%.2fx the uniform %.0f)", n, total, most, float64(most)/mean, mean)
	if limit := int64(2 * mean); most > limit {
		t.Errorf("busiest step had %d refreshes of %d installations; want at most %d (twice the uniform spread)", most, n, limit)
	}
	// Every installation is refreshed at least once an hour, and not much more.
	if total < int64(n) || total > int64(3*n) {
		t.Errorf("%d refreshes of %d installations in 2 h; want between 1 and 3 per installation", total, n)
	}
}

// TestCacheConsistentUnderChurn: concurrent Source, Token, Invalidate and
// Remove over more installations than the bound leave a Cache within its
// bound whose lookups agree with themselves (run with -race).
func TestCacheConsistentUnderChurn(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{5, 2000} {
		c := newCache(t, newKey(t), auth.WithMaxEntries(limit))
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				ctx := context.Background()
				for i := range 4 * limit {
					u := uuidN((i * (g + 1)) % (2 * limit))
					switch i % 7 {
					case 0:
						c.Remove(u)
					case 1:
						c.Invalidate(u, "x")
					default:
						if _, err := c.Token(ctx, u); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		if n := c.Len(); n > limit || n < 0 {
			t.Errorf("max %d: Len = %d", limit, n)
		}
		for i := range 2 * limit {
			if a, b := source(t, c, uuidN(i)), source(t, c, uuidN(i)); a != b {
				t.Fatalf("max %d: two lookups of %s disagree", limit, uuidN(i))
			}
		}
		if n := c.Len(); n != limit {
			t.Errorf("max %d: Len = %d after touching %d installations", limit, n, 2*limit)
		}
	}
}
