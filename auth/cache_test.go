package auth_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

func uuidN(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012x", i) }

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
	c := auth.NewCache(newKey(t))
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
// used entry goes; using an entry protects it.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := auth.NewCache(newKey(t), auth.WithMaxEntries(3))
	first := source(t, c, uuidN(1))
	source(t, c, uuidN(2))
	source(t, c, uuidN(3))
	source(t, c, uuidN(1)) // 2 is now the least recently used
	source(t, c, uuidN(4))
	if c.Len() != 3 {
		t.Fatalf("Len = %d, want 3", c.Len())
	}
	if source(t, c, uuidN(1)) != first {
		t.Error("a recently used entry was evicted")
	}
	// uuid 2 was evicted: Source makes a new one, evicting uuid 3 in turn.
	source(t, c, uuidN(2))
	if c.Len() != 3 {
		t.Errorf("Len = %d, want 3", c.Len())
	}
}

// TestCacheBound: however many installations pass through, a Cache never
// holds more than its maximum, sharded or not, and under concurrent use.
func TestCacheBound(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 100, 1024, 5000} {
		c := auth.NewCache(newKey(t), auth.WithMaxEntries(limit))
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
	c := auth.NewCache(newKey(t))
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

// TestCacheToken: Cache.Token gives a token of the installation, signed with
// the cache's key, on the clock given through WithSourceOptions.
func TestCacheToken(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	clock := newFakeClock()
	c := auth.NewCache(key, auth.WithSourceOptions(auth.WithClock(clock.Now)))
	tok, err := c.Token(context.Background(), goldenUUID)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := auth.NewVerifier(auth.WithClock(clock.Now)).Verify(tok, key)
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

// TestCacheRefusesBadInput: a malformed uuid or a zero key is an error and
// leaves nothing behind.
func TestCacheRefusesBadInput(t *testing.T) {
	t.Parallel()
	c := auth.NewCache(newKey(t))
	if _, err := c.Source("not-a-uuid"); !errors.Is(err, auth.ErrInvalidInstallationUUID) {
		t.Errorf("Source(bad uuid) error = %v", err)
	}
	if _, err := c.Token(context.Background(), ""); !errors.Is(err, auth.ErrInvalidInstallationUUID) {
		t.Errorf("Token(empty uuid) error = %v", err)
	}
	if c.Len() != 0 {
		t.Errorf("Len = %d after refused uuids, want 0", c.Len())
	}
	if _, err := auth.NewCache(auth.SecretKey{}).Source(goldenUUID); !errors.Is(err, auth.ErrInvalidKey) {
		t.Errorf("zero key: error = %v, want ErrInvalidKey", err)
	}
}
