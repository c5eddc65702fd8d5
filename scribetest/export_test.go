package scribetest

import "time"

// AfterFunc is c.afterFunc, for the tests of FakeClock's timers.
func AfterFunc(c *FakeClock, d time.Duration, f func()) interface{ Stop() bool } {
	return c.afterFunc(d, f)
}

// MovedClock is a FakeClock that some other goroutine moves forward by a
// second just as the server sets a retry timer: the race between the
// server reading Now and setting the timer, made certain.
type MovedClock struct{ *FakeClock }

func (c MovedClock) afterFunc(d time.Duration, f func()) timer {
	c.Advance(time.Second)
	return c.FakeClock.afterFunc(d, f)
}
