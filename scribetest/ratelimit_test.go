package scribetest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// quotaHeaders are the rate-limit headers of an answer, "" when absent.
type quotaHeaders struct{ Limit, Remaining, Reset, RetryAfter string }

func quotaOf(resp *http.Response) quotaHeaders {
	h := resp.Header
	return quotaHeaders{h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"), h.Get("Retry-After")}
}

// TestRateLimitCountsDown: each request of a credential holder counts;
// RateLimit-Remaining counts down to 0, then the holder gets 429
// rate_limited with Retry-After equal to the seconds left in the window,
// until the window ends and the quota is full again.
func TestRateLimitCountsDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, scribetest.WithRateLimit(3, time.Minute)) // the clock starts on a whole minute
	dev := e.devA.Key.Reveal()
	get := req{method: "GET", path: "/plugins", token: dev}

	var got []quotaHeaders
	for range 3 {
		resp, _ := e.do(t, get)
		if resp.StatusCode != 200 {
			t.Fatalf("within the quota: status %d, want 200", resp.StatusCode)
		}
		got = append(got, quotaOf(resp))
	}
	want := []quotaHeaders{{"3", "2", "60", ""}, {"3", "1", "60", ""}, {"3", "0", "60", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers within the quota (-want +got):\n%s", diff)
	}

	e.clock.Advance(15 * time.Second)
	resp, body := e.do(t, get)
	if p := problemOf(t, resp, body); resp.StatusCode != 429 || p.Code != scribe.CodeRateLimited {
		t.Fatalf("over the quota: %d %s, want 429 rate_limited", resp.StatusCode, p.Code)
	}
	if diff := cmp.Diff(quotaHeaders{"3", "0", "45", "45"}, quotaOf(resp)); diff != "" {
		t.Errorf("429 headers (-want +got):\n%s", diff)
	}

	e.clock.Advance(44*time.Second + 500*time.Millisecond)
	resp, _ = e.do(t, get)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("half a second before the window ends: %d, Retry-After %q; want 429, 1 (rounded up)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	e.clock.Advance(500 * time.Millisecond)
	resp, _ = e.do(t, get)
	if diff := cmp.Diff(quotaHeaders{"3", "2", "60", ""}, quotaOf(resp)); resp.StatusCode != 200 || diff != "" {
		t.Errorf("next window: status %d, want 200; headers (-want +got):\n%s", resp.StatusCode, diff)
	}
}

// TestRateLimitPerHolder: every developer and every installation has its
// own quota; an installation's JWTs share its quota however often they are
// re-minted; requests without a valid credential count for nobody.
func TestRateLimitPerHolder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, scribetest.WithRateLimit(2, time.Minute))
	spend := func(rq req) {
		t.Helper()
		for range 2 {
			if resp, _ := e.do(t, rq); resp.StatusCode != 200 {
				t.Fatalf("%s %s: status %d, want 200", rq.method, rq.path, resp.StatusCode)
			}
		}
	}
	spend(req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()})

	// Refused credentials: not counted, no RateLimit headers.
	for i, tok := range []string{"", "dk_live_unknown", e.jwt(t, e.keyNone, e.inst.UUID)} {
		resp, _ := e.do(t, req{method: "GET", path: "/plugins", token: tok})
		if resp.StatusCode != 401 || quotaOf(resp) != (quotaHeaders{}) {
			t.Errorf("refused token %d: status %d, headers %+v; want 401 without RateLimit headers", i, resp.StatusCode, quotaOf(resp))
		}
	}

	resp, _ := e.do(t, req{method: "GET", path: "/plugins", token: e.devB.Key.Reveal()})
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "1" {
		t.Errorf("another developer: %d, remaining %q; want 200 and 1", resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
	}

	first := e.userToken(t)
	e.clock.Advance(time.Second)
	second := e.userToken(t) // another token of the same installation
	if first == second {
		t.Fatal("the two tokens are equal; the test needs two")
	}
	for i, tok := range []string{first, second, first} {
		resp, _ := e.do(t, req{method: "GET", path: "/users/me", token: tok})
		want := 200
		if i == 2 {
			want = 429
		}
		if resp.StatusCode != want {
			t.Errorf("installation request %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	resp, _ = e.do(t, req{method: "GET", path: "/users/me", token: e.jwt(t, e.keyNone, e.instNone.UUID)})
	if resp.StatusCode == 429 {
		t.Error("another installation of the same user was limited with the first")
	}
}

// TestRateLimitedPOSTDoesNoWork: a request over the quota is refused before
// the operation runs.
func TestRateLimitedPOSTDoesNoWork(t *testing.T) {
	t.Parallel()
	e := newEnv(t, scribetest.WithRateLimit(1, time.Minute))
	before := pluginCount(e)
	post := req{method: "POST", path: "/plugins", token: e.devA.Key.Reveal(), body: `{"name":"x"}`}
	if resp, _ := e.do(t, post); resp.StatusCode != 200 {
		t.Fatalf("first POST: status %d, want 200", resp.StatusCode)
	}
	if resp, _ := e.do(t, post); resp.StatusCode != 429 {
		t.Fatalf("second POST: status %d, want 429", resp.StatusCode)
	}
	if got := pluginCount(e); got != before+1 {
		t.Errorf("plugins: %d, want %d (the limited POST created one)", got, before+1)
	}
}

// TestRateLimitOff: without WithRateLimit nothing is limited, and every
// answer announces the fixed quota (1000, all remaining, resetting at the
// next minute of the server's clock).
func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock.Advance(20 * time.Second)
	for range 3 {
		resp, _ := e.do(t, req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()})
		if diff := cmp.Diff(quotaHeaders{"1000", "1000", "40", ""}, quotaOf(resp)); resp.StatusCode != 200 || diff != "" {
			t.Fatalf("status %d; headers (-want +got):\n%s", resp.StatusCode, diff)
		}
	}
}

// TestRateLimitConcurrent: under concurrent requests a holder gets exactly
// its quota of successes in a window.
func TestRateLimitConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, scribetest.WithRateLimit(10, time.Minute))
	status := e.statusesOf(t, 25, req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()})
	if diff := cmp.Diff(map[int]int{200: 10, 429: 15}, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestWithRateLimitRejects: a limit below 1 or a window under a second is
// an error from the constructor, not a server that limits oddly.
func TestWithRateLimitRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		limit  int
		window time.Duration
	}{{0, time.Minute}, {-1, time.Minute}, {10, 0}, {10, 500 * time.Millisecond}} {
		if _, err := scribetest.NewUnstartedServer(scribetest.WithRateLimit(tt.limit, tt.window)); err == nil {
			t.Errorf("WithRateLimit(%d, %s): no error", tt.limit, tt.window)
		}
	}
}

// retryAfterSeen records the Retry-After of every 429 the client gets.
type retryAfterSeen struct {
	next  http.RoundTripper
	mu    sync.Mutex
	after time.Duration // the last Retry-After seen
}

func (c *retryAfterSeen) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		if d, perr := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); perr == nil {
			c.mu.Lock()
			c.after = d
			c.mu.Unlock()
		}
	}
	return resp, err
}

// TestClientRetriesRateLimited: the clients the server hands out honour a
// 429's Retry-After in real time, as any client does, and never move the
// server's clock. On the system clock the client waits out the window and
// its retry succeeds in the next one. On a FakeClock the window ends only
// when the test moves the clock: a call whose context cannot wait that long
// ends at once with ErrRateLimited (the client does not sleep until its
// deadline), and after Advance the next call goes through.
func TestClientRetriesRateLimited(t *testing.T) {
	t.Parallel()
	t.Run("system clock", func(t *testing.T) {
		t.Parallel()
		s := scribetest.NewTestServer(t, scribetest.WithRateLimit(1, time.Second))
		dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync"})
		if err != nil {
			t.Fatal(err)
		}
		tr := &retryAfterSeen{next: http.DefaultTransport}
		c, err := s.DeveloperClient(dev.Key, scribe.WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for i := range 2 {
			if _, err := c.GetPlugin(ctx, p.ID); err != nil {
				t.Fatalf("call %d: %v; after a 429 the client waits the Retry-After and retries", i+1, err)
			}
		}
		var statuses []int
		for _, r := range s.Requests() {
			statuses = append(statuses, r.Status)
		}
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if want := []int{200, 429, 200}; !slices.Equal(statuses, want) && tr.after != 0 {
			t.Errorf("statuses %v, want %v", statuses, want) // or no 429 at all, when the first call ended a window
		}
	})
	t.Run("fake clock", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, scribetest.WithRateLimit(1, time.Minute))
		c, err := e.s.DeveloperClient(e.devA.Key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetPlugin(context.Background(), e.plugin.ID); err != nil {
			t.Fatal(err)
		}
		before := e.s.Clock().Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = c.GetPlugin(ctx, e.plugin.ID)
		var se *scribe.Error
		if !errors.Is(err, scribe.ErrRateLimited) || !errors.As(err, &se) || se.RetryAfter != time.Minute {
			t.Fatalf("over the quota: %v; want ErrRateLimited with the minute left", err)
		}
		if ctx.Err() != nil {
			t.Error("the call slept until its deadline instead of ending at once")
		}
		if now := e.s.Clock().Now(); !now.Equal(before) {
			t.Errorf("the client moved the server's clock from %s to %s", before, now)
		}
		e.clock.Advance(time.Minute)
		if _, err := c.GetPlugin(context.Background(), e.plugin.ID); err != nil {
			t.Errorf("in the next window: %v", err)
		}
	})
}

// TestSetRateLimit: SetRateLimit limits a running server as WithRateLimit
// does, with a fresh quota; limit 0 turns it off; a bad limit is an error
// that changes nothing. Requests and SetRateLimit run concurrently.
func TestSetRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	get := req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()}
	if err := e.s.SetRateLimit(2, time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{200, 200, 429} {
		if resp, _ := e.do(t, get); resp.StatusCode != want || resp.Header.Get("RateLimit-Limit") != "2" {
			t.Errorf("request %d: %d, limit %q; want %d and 2", i+1, resp.StatusCode, resp.Header.Get("RateLimit-Limit"), want)
		}
	}
	for _, bad := range [][2]int64{{-1, int64(time.Minute)}, {2, int64(time.Millisecond)}} {
		if err := e.s.SetRateLimit(int(bad[0]), time.Duration(bad[1])); err == nil {
			t.Errorf("SetRateLimit(%d, %v): no error", bad[0], time.Duration(bad[1]))
		}
	}
	if resp, _ := e.do(t, get); resp.StatusCode != 429 {
		t.Errorf("after refused changes: %d, want the limit kept (429)", resp.StatusCode)
	}
	if err := e.s.SetRateLimit(0, 0); err != nil {
		t.Fatal(err)
	}
	if resp, _ := e.do(t, get); resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "1000" {
		t.Errorf("with the limit off: %d, limit %q; want 200 and the contract's example quota", resp.StatusCode, resp.Header.Get("RateLimit-Limit"))
	}
	// Changed while requests are served: each is served under one limit.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 20 {
			_ = e.s.SetRateLimit(1000*(i%2), time.Minute)
		}
	})
	for range 20 {
		if resp, _ := e.do(t, get); resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "1000" {
			t.Errorf("while the limit changes: %d, limit %q", resp.StatusCode, resp.Header.Get("RateLimit-Limit"))
		}
	}
	wg.Wait()
}

// TestRateLimitOptionCountsPerServer: one WithRateLimit option given to two
// servers gives each its own quota: what a holder spends on one is not
// spent on the other.
func TestRateLimitOptionCountsPerServer(t *testing.T) {
	t.Parallel()
	opt, clock := scribetest.WithRateLimit(1, time.Hour), scribetest.WithClock(scribetest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	for i := range 2 {
		s := scribetest.NewTestServer(t, opt, clock)
		dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(t.Context(), "GET", s.URL()+"/plugins", nil)
		req.Header.Set("Authorization", "Bearer "+dev.Key.Reveal())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("server %d: the first request of its quota answered %d, want 200", i+1, resp.StatusCode)
		}
	}
}
