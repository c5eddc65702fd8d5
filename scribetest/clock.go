package scribetest

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// The server reads its clock (WithClock's auth.Clock, or the system's) for
// token expiry, the timestamps of new resources, the 24-hour life of
// idempotency keys and the signing time of webhook deliveries, so a test
// that controls the clock controls all of them. A FakeClock times the waits
// between webhook delivery attempts too; on any other clock they are timers
// of the system clock.

// timerClock is a clock that also runs functions after a delay, as
// time.AfterFunc does: FakeClock, or a type that embeds one.
type timerClock interface {
	auth.Clock
	// afterFunc calls f, in its own goroutine or in the one that moves the
	// clock, once the clock has advanced by d.
	afterFunc(d time.Duration, f func()) timer
}

// timer is a pending call of afterFunc; *time.Timer is one. Stop prevents
// the call, and reports false if it already ran or was stopped.
type timer interface{ Stop() bool }

// realClock is the default clock: the system's wall clock and its timers.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) afterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

// advancer is a clock a test moves, such as a FakeClock: where the server
// would wait on it, it moves it instead.
type advancer interface {
	Advance(d time.Duration)
}

// FakeClock is an auth.Clock that stands still until told to move. Pass it
// to WithClock once: the server, the clients and token sources of
// InstallationClient, TokenSource and TokenCache, and the Verifier of
// WebhookVerifier all read it, and moving it fires the webhook retries that
// are due, so a test walks a 27-hour retry schedule in milliseconds. Give it
// to code of your own as auth.WithClock(clock) or webhook.WithClock(clock).
// It is safe for concurrent use.
type FakeClock struct {
	move sync.Mutex // serializes Advance and Set, so that concurrent moves add up

	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer // pending, by due time, then by creation
}

// NewFakeClock returns a FakeClock that reads t until it is advanced or set.
func NewFakeClock(t time.Time) *FakeClock {
	return &FakeClock{now: t}
}

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d. The functions of the timers that
// fall due on the way run one after the other, in the calling goroutine, in
// order of due time (then of creation), each while Now reads its due time; a
// timer one of them creates runs too if it falls due before the end. A
// negative d moves the clock backward and fires nothing.
func (c *FakeClock) Advance(d time.Duration) {
	c.move.Lock()
	defer c.move.Unlock()
	c.moveTo(c.Now().Add(d))
}

// Set moves the clock to t, firing the timers due by then when t is later
// than Now (as Advance does).
func (c *FakeClock) Set(t time.Time) {
	c.move.Lock()
	defer c.move.Unlock()
	c.moveTo(t)
}

// moveTo fires the timers due by target, in order, then reads target.
func (c *FakeClock) moveTo(target time.Time) {
	for {
		c.mu.Lock()
		if len(c.timers) == 0 || c.timers[0].at.After(target) {
			c.now = target
			c.mu.Unlock()
			return
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		t.done = true
		if t.at.After(c.now) {
			c.now = t.at
		}
		c.mu.Unlock()
		t.f()
	}
}

// afterFunc calls f once the clock has been advanced by d: in the goroutine
// that calls Advance or Set, or, when d is not positive, at once in a
// goroutine of its own (as time.AfterFunc does).
func (c *FakeClock) afterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	if d <= 0 {
		t.done = true
		go f()
		return t
	}
	// After the timers due at the same time or before: they were created first.
	i, _ := slices.BinarySearchFunc(c.timers, t.at, func(u *fakeTimer, at time.Time) int { return cmp.Or(u.at.Compare(at), -1) })
	c.timers = slices.Insert(c.timers, i, t)
	return t
}

// PendingTimers returns the due times of the timers that have not fired nor
// been stopped, earliest first: with a server on this clock, the next
// webhook attempts.
func (c *FakeClock) PendingTimers() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]time.Time, len(c.timers))
	for i, t := range c.timers {
		out[i] = t.at
	}
	return out
}

// fakeTimer is a pending call of FakeClock.afterFunc.
type fakeTimer struct {
	c    *FakeClock
	at   time.Time
	f    func()
	done bool // fired or stopped; guarded by c.mu
}

// Stop prevents the call if it has not run yet.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	t.c.timers = slices.DeleteFunc(t.c.timers, func(u *fakeTimer) bool { return u == t })
	return true
}
