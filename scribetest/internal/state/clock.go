package state

import "time"

// Clock tells the server the time, for tokens, resources, idempotency keys
// and webhooks. Its Now must be safe for concurrent use.
type Clock interface {
	// Now returns the current time; it must be safe for concurrent use.
	Now() time.Time
}

// TimerClock is a Clock that also runs functions after a delay; the server
// times its webhook retries with it.
type TimerClock interface {
	Clock
	// AfterFunc calls f once the clock has advanced by d, as time.AfterFunc does.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending call of TimerClock.AfterFunc. *time.Timer is one.
type Timer interface {
	// Stop prevents the call; it reports false if the call already ran or
	// was stopped.
	Stop() bool
}

// Advancer is a clock a test moves, such as scribetest.FakeClock: where the
// server would wait on it, it moves it instead.
type Advancer interface {
	Advance(d time.Duration)
}

// Real is the system clock and its timers.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
