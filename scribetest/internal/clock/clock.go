// Package clock is the time the reference server reads and waits on; the
// face exposes the same shapes as Clock, TimerClock and FakeClock.
package clock

import "time"

// Clock tells the time. It must be safe for concurrent use.
type Clock interface {
	Now() time.Time
}

// Timer is a pending call of TimerClock.AfterFunc.
type Timer interface {
	// Stop prevents the call; false if it already ran or was stopped.
	Stop() bool
}

// TimerClock is a Clock that also calls functions after a delay, as time.AfterFunc does.
type TimerClock interface {
	Clock
	AfterFunc(d time.Duration, f func()) Timer
}

// Advancer is a clock a test moves (FakeClock): waits move it instead.
type Advancer interface {
	Advance(d time.Duration)
}

// Real is the system clock and its timers.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
