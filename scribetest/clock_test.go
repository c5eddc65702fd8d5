package scribetest_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// FakeClock's timers fire when the clock is moved past them, in order of
// due time (then of creation), each with Now reading its due time; a timer
// created by a firing one fires in the same Advance if due by its end;
// stopped timers never fire; moving backward fires nothing.
func TestFakeClockTimers(t *testing.T) {
	t.Parallel()
	c := scribetest.NewFakeClock(t0)
	var fired []string
	at := map[string]time.Time{}
	record := func(name string) func() {
		return func() { fired = append(fired, name); at[name] = c.Now() }
	}
	scribetest.AfterFunc(c, 3*time.Second, record("3s"))
	scribetest.AfterFunc(c, time.Second, record("1s-a"))
	scribetest.AfterFunc(c, time.Second, record("1s-b"))
	stopped := scribetest.AfterFunc(c, 2*time.Second, record("stopped"))
	scribetest.AfterFunc(c, 2*time.Second, func() {
		record("2s")()
		scribetest.AfterFunc(c, 500*time.Millisecond, record("2.5s, created at 2s"))
		scribetest.AfterFunc(c, time.Hour, record("later"))
	})
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop: want true the first time, false after")
	}
	if got := c.PendingTimers(); len(got) != 4 || !got[0].Equal(t0.Add(time.Second)) || !got[3].Equal(t0.Add(3*time.Second)) {
		t.Errorf("PendingTimers = %v; want 4, from t0+1s to t0+3s", got)
	}

	c.Advance(-time.Minute)
	if len(fired) != 0 {
		t.Fatalf("moving backward fired %v", fired)
	}
	c.Set(t0)
	c.Advance(10 * time.Second)
	want := []string{"1s-a", "1s-b", "2s", "2.5s, created at 2s", "3s"}
	if !slices.Equal(fired, want) {
		t.Errorf("fired %v, want %v", fired, want)
	}
	for name, d := range map[string]time.Duration{"1s-a": time.Second, "2s": 2 * time.Second, "2.5s, created at 2s": 2500 * time.Millisecond, "3s": 3 * time.Second} {
		if !at[name].Equal(t0.Add(d)) {
			t.Errorf("timer %s ran with Now = %v, want t0+%v", name, at[name], d)
		}
	}
	if !c.Now().Equal(t0.Add(10 * time.Second)) {
		t.Errorf("Now = %v after the moves, want t0+10s", c.Now())
	}
	if got := c.PendingTimers(); len(got) != 1 || !got[0].Equal(t0.Add(2*time.Second+time.Hour)) {
		t.Errorf("PendingTimers = %v; want the one an hour after 2s", got)
	}
}

// A non-positive delay runs the function at once, in a goroutine of its
// own, as time.AfterFunc does; concurrent Advances add up.
func TestFakeClockImmediateTimerAndConcurrentAdvance(t *testing.T) {
	t.Parallel()
	c := scribetest.NewFakeClock(t0)
	done := make(chan struct{})
	if scribetest.AfterFunc(c, 0, func() { close(done) }).Stop() {
		t.Error("Stop of a timer that runs at once reported true")
	}
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatal("afterFunc(0, f) did not run f")
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Advance(time.Minute) })
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(t0.Add(10 * time.Minute)) {
		t.Errorf("ten concurrent Advance(1m) moved the clock to %v, want t0+10m", got)
	}
}

// The server's token helpers read its clock: on a FakeClock days behind the
// system's, clients built from TokenSource and TokenCache are accepted, while
// a token source on the system clock mints tokens the server finds issued
// in the future. After the fake clock moves two hours, they mint anew.
func TestTokenHelpersReadTheServersClock(t *testing.T) {
	t.Parallel()
	clock := scribetest.NewFakeClock(time.Now().Add(-72 * time.Hour).Truncate(time.Second))
	s := scribetest.NewTestServer(t, scribetest.WithClock(clock))
	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "p", Permissions: scribe.Permissions{User: scribe.PermissionRead}})
	if err != nil {
		t.Fatal(err)
	}
	user, err := s.CreateUser(scribe.User{FirstName: "Grace"})
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateSecretKey(plugin.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := s.Install(plugin.ID, user.ID)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := s.TokenSource(key.Key, inst.UUID)
	if err != nil {
		t.Fatal(err)
	}
	viaSource, err := scribe.NewClient(s.URL(), scribe.WithTokenSource(ts))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := s.TokenCache(key.Key)
	if err != nil {
		t.Fatal(err)
	}
	clients, err := scribe.NewInstallationClients(s.URL(), cache)
	if err != nil {
		t.Fatal(err)
	}
	viaCache, err := clients.For(inst.UUID)
	if err != nil {
		t.Fatal(err)
	}
	systemClock, err := scribe.NewInstallationClient(s.URL(), key.Key, inst.UUID, scribe.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for round := range 2 {
		for name, c := range map[string]*scribe.Client{"TokenSource": viaSource, "TokenCache": viaCache} {
			if _, err := c.GetMe(ctx); err != nil {
				t.Errorf("round %d, client from %s: %v", round, name, err)
			}
		}
		clock.Advance(2 * time.Hour) // past the first tokens' expiry
	}
	if _, err := systemClock.GetMe(ctx); err == nil {
		t.Error("a token minted on the system clock, 3 days ahead of the server's, was accepted; the test proves nothing")
	}
}

// WaitForDeliveries still walks a retry whose timer was set after the
// clock moved: it advances to the timer's real due time rather than
// spinning at one it read a moment too early.
func TestWaitForDeliveriesWhenTheClockMovesAsATimerIsSet(t *testing.T) {
	t.Parallel()
	clock := scribetest.MovedClock{FakeClock: scribetest.NewFakeClock(t0)}
	s := scribetest.NewTestServer(t, scribetest.WithClock(clock), scribetest.WithWebhookSchedule(0, time.Hour),
		scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	var calls atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(rc.Close)
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync"})
	user, _ := s.CreateUser(scribe.User{FirstName: "Grace"})
	if _, err := s.CreateWebhook(plugin.ID, rc.URL+"/hook"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(plugin.ID, user.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		t.Fatalf("WaitForDeliveries: %v; pending %+v, timers %v, now %v", err, s.PendingDeliveries(), clock.PendingTimers(), clock.Now())
	}
	if a := s.Deliveries(); len(a) != 2 || !a[1].Delivered {
		t.Errorf("attempts:\n%s want a failure, then the retry delivered", attemptLines(a))
	}
}
