package auth

import "time"

// WithMintHook makes a TokenSource call f after each mint, while it still
// holds the mint lock: tests count mints and hold a mint in progress.
func WithMintHook(f func()) SourceOption {
	return sourceOptionFunc(func(c *sourceConfig) { c.onMint = f })
}

// FakeTimer is a timer the test fires by hand.
type FakeTimer struct {
	D       time.Duration
	F       func()
	Stopped bool
}

// Stop implements stopper.
func (t *FakeTimer) Stop() bool { t.Stopped = true; return true }

// WithFakeTimers makes a TokenSource use timers (even with WithClock) that
// the test fires; each new timer is sent on the returned channel.
func WithFakeTimers(timers chan<- *FakeTimer) SourceOption {
	return sourceOptionFunc(func(c *sourceConfig) {
		c.afterFunc = func(d time.Duration, f func()) stopper {
			t := &FakeTimer{D: d, F: f}
			timers <- t
			return t
		}
	})
}
