package auth_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/jwtverify"
)

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: goldenTime} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// fixedClock is a Clock that always reads the same time.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// countingSource returns a TokenSource on clock and a counter of its mints.
func countingSource(t *testing.T, clock *fakeClock, opts ...auth.SourceOption) (*auth.TokenSource, *atomic.Int64) {
	t.Helper()
	return countingSourceWithKey(t, newKey(t), clock, opts...)
}

func countingSourceWithKey(t *testing.T, key auth.SecretKey, clock *fakeClock, opts ...auth.SourceOption) (*auth.TokenSource, *atomic.Int64) {
	t.Helper()
	var mints atomic.Int64
	opts = append([]auth.SourceOption{auth.WithClock(clock), auth.WithMintHook(func() { mints.Add(1) })}, opts...)
	ts, err := auth.NewTokenSource(key, goldenUUID, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ts, &mints
}

func token(t *testing.T, ts *auth.TokenSource) string {
	t.Helper()
	tok, err := ts.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The interfaces of package scribe, restated: a TokenSource must satisfy them.
var _ interface {
	Token(context.Context) (string, error)
	Invalidate(string)
} = (*auth.TokenSource)(nil)

// TestTokenSourceCaches: the first call mints a valid token for the
// installation; later calls before the refresh time return it without minting.
func TestTokenSourceCaches(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	key := newKey(t)
	ts, mints := countingSourceWithKey(t, key, clock)
	first := token(t, ts)
	for range 10 {
		if got := token(t, ts); got != first {
			t.Fatal("a cached token changed before its refresh time")
		}
	}
	if n := mints.Load(); n != 1 {
		t.Errorf("mints = %d, want 1", n)
	}
	c, err := jwtverify.New(clock.Now, jwtverify.DefaultLeeway).Verify(first, key)
	if err != nil || c.InstallationUUID != goldenUUID || !c.IssuedAt.Equal(goldenTime) {
		t.Errorf("Verify = %+v, %v; want a token of %s issued now", c, err, goldenUUID)
	}
	if ts.InstallationUUID() != goldenUUID {
		t.Errorf("InstallationUUID() = %q", ts.InstallationUUID())
	}
}

// TestTokenSourceRefreshWindow: without jitter the token is replaced exactly
// at exp minus the refresh-ahead time, not a second earlier.
func TestTokenSourceRefreshWindow(t *testing.T) {
	t.Parallel()
	for _, ahead := range []time.Duration{auth.DefaultRefreshAhead, 0, 30 * time.Minute} {
		clock := newFakeClock()
		ts, mints := countingSource(t, clock, auth.WithJitter(0), auth.WithRefreshAhead(ahead))
		first := token(t, ts)
		refreshAt := goldenTime.Add(auth.TokenLifetime - ahead)

		clock.Set(refreshAt.Add(-time.Second))
		if token(t, ts) != first || mints.Load() != 1 {
			t.Errorf("ahead %v: refreshed before the window (mints = %d)", ahead, mints.Load())
		}
		clock.Set(refreshAt)
		second := token(t, ts)
		if second == first || mints.Load() != 2 {
			t.Errorf("ahead %v: not refreshed at the window (mints = %d)", ahead, mints.Load())
		}
		if token(t, ts) != second || mints.Load() != 2 {
			t.Errorf("ahead %v: the new token is not cached", ahead)
		}
	}
}

// TestTokenSourceJitter: with the default jitter each token is refreshed
// somewhere in [exp-6min, exp-5min]: never earlier, always by then, and not
// all at the same moment.
func TestTokenSourceJitter(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	const n = 200
	sources := make([]*auth.TokenSource, n)
	firsts := make([]string, n)
	for i := range sources {
		sources[i], _ = countingSource(t, clock)
		firsts[i] = token(t, sources[i])
	}
	expiry := goldenTime.Add(auth.TokenLifetime)
	refreshed := func(at time.Time) int {
		clock.Set(at)
		count := 0
		for i, ts := range sources {
			if token(t, ts) != firsts[i] {
				count++
			}
		}
		return count
	}
	if got := refreshed(expiry.Add(-auth.DefaultRefreshAhead - auth.DefaultJitter - time.Second)); got != 0 {
		t.Errorf("%d of %d tokens refreshed before exp - refresh-ahead - jitter", got, n)
	}
	mid := refreshed(expiry.Add(-auth.DefaultRefreshAhead - auth.DefaultJitter/2))
	if mid == 0 || mid == n {
		t.Errorf("%d of %d tokens refreshed half-way through the jitter; want a spread", mid, n)
	}
	if got := refreshed(expiry.Add(-auth.DefaultRefreshAhead)); got != n {
		t.Errorf("%d of %d tokens refreshed by exp - refresh-ahead; want all", got, n)
	}
}

// TestTokenSourceOneMintAtATime: many goroutines asking at once, on a fresh
// source and again inside the refresh window, cause exactly one mint each
// time, and every caller gets a token that is still valid.
func TestTokenSourceOneMintAtATime(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	ts, mints := countingSource(t, clock, auth.WithJitter(0))
	storm := func() map[string]bool {
		var wg sync.WaitGroup
		var mu sync.Mutex
		seen := map[string]bool{}
		start := make(chan struct{})
		for range 64 {
			wg.Go(func() {
				<-start
				tok := token(t, ts)
				mu.Lock()
				seen[tok] = true
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		return seen
	}
	if seen := storm(); len(seen) != 1 || mints.Load() != 1 {
		t.Errorf("fresh source: %d distinct tokens, %d mints; want 1 and 1", len(seen), mints.Load())
	}
	clock.Set(goldenTime.Add(auth.TokenLifetime - auth.DefaultRefreshAhead))
	if seen := storm(); len(seen) > 2 || mints.Load() != 2 {
		t.Errorf("refresh window: %d distinct tokens, %d mints; want the old or the new one, 2 mints", len(seen), mints.Load())
	}
}

// TestTokenSourceDoesNotWaitForRefresh: while one goroutine mints, another
// caller is handed the still-valid current token instead of waiting.
func TestTokenSourceDoesNotWaitForRefresh(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	minting, release := make(chan struct{}), make(chan struct{})
	var hold atomic.Bool
	ts, err := auth.NewTokenSource(newKey(t), goldenUUID, auth.WithClock(clock), auth.WithJitter(0),
		auth.WithMintHook(func() {
			if hold.Load() {
				close(minting)
				<-release
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	old := token(t, ts)
	clock.Set(goldenTime.Add(auth.TokenLifetime - auth.DefaultRefreshAhead))
	hold.Store(true)
	done := make(chan string)
	go func() { done <- token(t, ts) }()
	<-minting

	got := make(chan string)
	go func() { got <- token(t, ts) }()
	select {
	case tok := <-got:
		if tok != old {
			t.Error("caller during a refresh got a token other than the current one")
		}
	case <-time.After(10 * time.Second):
		t.Error("caller waited for the mint in progress although the current token is valid")
	}
	close(release)
	if <-done == old {
		t.Error("the refreshing caller got the old token")
	}
}

// TestTokenSourceInvalidate: Invalidate drops the token only if it is still
// the current one, so a burst of 401s for one token causes one new mint.
func TestTokenSourceInvalidate(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	ts, mints := countingSource(t, clock)
	first := token(t, ts)
	clock.Set(goldenTime.Add(time.Second)) // so a new token differs from the first

	ts.Invalidate("some other token")
	if token(t, ts) != first || mints.Load() != 1 {
		t.Fatal("Invalidate of a token not cached dropped the cached one")
	}

	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			ts.Invalidate(first)
			if tok := token(t, ts); tok == first {
				t.Error("Token returned the invalidated token")
			}
		})
	}
	wg.Wait()
	if n := mints.Load(); n != 2 {
		t.Errorf("mints after 32 concurrent Invalidate calls = %d, want 2", n)
	}
}

// TestTokenSourceHonoursCancelledContext: a caller that would have to wait
// for a mint returns the context's error if the context is already done.
func TestTokenSourceHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	ts, mints := countingSource(t, newFakeClock())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ts.Token(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Token with a cancelled context before any mint: err = %v, want context.Canceled", err)
	}
	if mints.Load() != 0 {
		t.Error("minted for a cancelled context")
	}
}

// TestNewTokenSourceRefusesBadInput: key, uuid and options are checked up front.
func TestNewTokenSourceRefusesBadInput(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	for _, tc := range []struct {
		name string
		key  auth.SecretKey
		uuid string
		opts []auth.SourceOption
		want error
	}{
		{"zero key", auth.SecretKey{}, goldenUUID, nil, auth.ErrInvalidKey},
		{"bad uuid", key, "installation-1", nil, auth.ErrInvalidInstallationUUID},
		{"negative refresh-ahead", key, goldenUUID, []auth.SourceOption{auth.WithRefreshAhead(-time.Second)}, nil},
		{"negative jitter", key, goldenUUID, []auth.SourceOption{auth.WithJitter(-time.Second)}, nil},
		{"refresh-ahead of the whole lifetime", key, goldenUUID, []auth.SourceOption{auth.WithRefreshAhead(time.Hour)}, nil},
		{"refresh-ahead plus jitter of the whole lifetime", key, goldenUUID, []auth.SourceOption{auth.WithRefreshAhead(50 * time.Minute), auth.WithJitter(10 * time.Minute)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := auth.NewTokenSource(tc.key, tc.uuid, tc.opts...)
			if err == nil || ts != nil {
				t.Fatalf("NewTokenSource = %v, %v; want an error", ts, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v is not %v", err, tc.want)
			}
		})
	}
}

// TestTokenSourceDefaultClock: without WithClock a TokenSource reads
// time.Now, so its token is issued at the current second and verifies now.
func TestTokenSourceDefaultClock(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	ts, err := auth.NewTokenSource(key, goldenUUID)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Unix()
	tok := token(t, ts)
	after := time.Now().Unix()
	c, err := jwtverify.New(time.Now, jwtverify.DefaultLeeway).Verify(tok, key)
	if err != nil {
		t.Fatalf("a token of the default clock does not verify now: %v", err)
	}
	if iat := c.IssuedAt.Unix(); iat < before || iat > after {
		t.Errorf("iat = %d, want the current time (between %d and %d)", iat, before, after)
	}
}

// TestCacheEvictedSourceKeepsWorking: a TokenSource the Cache drops still
// hands out its valid token to a caller that holds it.
func TestCacheEvictedSourceKeepsWorking(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	key := newKey(t)
	c := newCache(t, key, auth.WithMaxEntries(1), auth.WithSourceOptions(auth.WithClock(clock)))
	evicted := source(t, c, uuidN(1))
	tok := token(t, evicted)
	source(t, c, uuidN(2))
	if c.Len() != 1 || source(t, c, uuidN(1)) == evicted {
		t.Fatal("the first source was not evicted")
	}
	if again := token(t, evicted); again != tok {
		t.Error("an evicted source changed its valid token")
	}
}

// TestTokenSourceClockOutOfRange: a clock before 1970 (or past 2^53-1 s)
// gives an error from Token, not a token that every verifier refuses.
func TestTokenSourceClockOutOfRange(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{time.Unix(-10, 0), time.Unix(maxClaimSeconds, 0)} {
		ts, err := auth.NewTokenSource(newKey(t), goldenUUID, auth.WithClock(fixedClock(at)))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := ts.Token(context.Background())
		if !errors.Is(err, auth.ErrTimeOutOfRange) || tok != "" {
			t.Errorf("Token at %d = %q, %v; want ErrTimeOutOfRange", at.Unix(), tok, err)
		}
	}
}

// TestContextWithMintHook protects the mint seam: a hook put in the context
// is called once per token minted, with the installation's uuid, and not
// for a token handed out from the cache; hooks stack, the outer first.
func TestContextWithMintHook(t *testing.T) {
	clock := newFakeClock()
	ts, _ := countingSource(t, clock, auth.WithJitter(0))
	var got []string
	ctx := auth.ContextWithMintHook(context.Background(), func(_ context.Context, uuid string) { got = append(got, "outer "+uuid) })
	ctx = auth.ContextWithMintHook(ctx, func(_ context.Context, uuid string) { got = append(got, "inner "+uuid) })
	if auth.ContextWithMintHook(ctx, nil) != ctx {
		t.Error("a nil hook changed the context")
	}
	for range 3 { // one mint, two cached
		if _, err := ts.Token(ctx); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(goldenTime.Add(auth.TokenLifetime)) // due: the next call mints
	if _, err := ts.Token(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"outer " + goldenUUID, "inner " + goldenUUID, "outer " + goldenUUID, "inner " + goldenUUID}
	if len(got) != len(want) {
		t.Fatalf("hook calls = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("hook call %d = %q, want %q", i, got[i], want[i])
		}
	}
}
