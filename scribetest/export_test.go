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

// KeptBodyBytes is what the engine counts against the body budget: the
// event bodies it keeps and the answer excerpts.
func (s *Server) KeptBodyBytes() int64 {
	s.deliveries.mu.Lock()
	defer s.deliveries.mu.Unlock()
	return s.deliveries.kept + s.deliveries.excerpts
}
