package scribetest

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Clock tells the server the time, for tokens, resources, idempotency keys and
// webhooks; a TimerClock (FakeClock is one) also times the delivery retries.
type Clock interface {
	// Now returns the current time; it must be safe for concurrent use.
	Now() time.Time
}

// TimerClock is a Clock that also runs functions after a delay.
type TimerClock interface {
	Clock
	// AfterFunc calls f once the clock has advanced by d, as time.AfterFunc does.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending call of TimerClock.AfterFunc. *time.Timer is one.
type Timer interface {
	// Stop prevents the call; false if it already ran or was stopped.
	Stop() bool
}

// realClock is the default Clock: the system's wall clock and its timers.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// advancer is a clock a test moves, such as a FakeClock: where the server
// would wait on it, it moves it instead.
type advancer interface {
	Advance(d time.Duration)
}

// FakeClock is a TimerClock that stands still until moved, firing the timers due
// (docs/testing.md, "One clock"). It is safe for concurrent use.
type FakeClock struct {
	move sync.Mutex // serializes Advance and Set, so that concurrent moves add up

	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers []*fakeTimer // pending, in no order
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

// Advance moves the clock by d. The timers that fall due on the way run in
// the calling goroutine, in order of due time then creation, each while Now
// reads its due time. A negative d moves the clock back and fires nothing.
func (c *FakeClock) Advance(d time.Duration) {
	c.move.Lock()
	defer c.move.Unlock()
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	c.moveTo(target)
}

// Set moves the clock to t, firing the timers due by then as Advance does.
func (c *FakeClock) Set(t time.Time) {
	c.move.Lock()
	defer c.move.Unlock()
	c.moveTo(t)
}

// moveTo fires the timers due by target, in order, then reads target.
func (c *FakeClock) moveTo(target time.Time) {
	for {
		c.mu.Lock()
		i := -1
		for j, t := range c.timers {
			if !t.at.After(target) && (i < 0 || t.before(c.timers[i])) {
				i = j
			}
		}
		if i < 0 {
			c.now = target
			c.mu.Unlock()
			return
		}
		t := c.timers[i]
		c.timers = slices.Delete(c.timers, i, i+1)
		t.done = true
		if t.at.After(c.now) {
			c.now = t.at
		}
		c.mu.Unlock()
		t.f()
	}
}

// AfterFunc calls f once the clock has moved by d, in the goroutine moving it.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	if d <= 0 {
		t.done = true
		go f()
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// PendingTimers returns when the pending timers are due, earliest first.
func (c *FakeClock) PendingTimers() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := slices.Clone(c.timers)
	slices.SortFunc(ts, func(a, b *fakeTimer) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	out := make([]time.Time, len(ts))
	for i, t := range ts {
		out[i] = t.at
	}
	return out
}

// fakeTimer is a pending call of FakeClock.AfterFunc.
type fakeTimer struct {
	c    *FakeClock
	at   time.Time
	seq  uint64
	f    func()
	done bool // fired or stopped; guarded by c.mu
}

func (t *fakeTimer) before(u *fakeTimer) bool {
	if c := t.at.Compare(u.at); c != 0 {
		return c < 0
	}
	return cmp.Less(t.seq, u.seq)
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
