package scribetest

import (
	"sync"
	"time"
)

// Clock tells the server what time it is. Token expiry, timestamps of new
// resources and the 24-hour life of idempotency keys all read it, so a test
// that controls the clock controls all three.
type Clock interface {
	// Now returns the current time. Request handlers and the webhook
	// delivery loop call it concurrently, so it must be safe for
	// concurrent use.
	Now() time.Time
}

// realClock is the default Clock: the system's wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// FakeClock is a Clock that stands still until told to move. It is safe for
// concurrent use.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
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

// Advance moves the clock forward by d (backward if d is negative).
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
