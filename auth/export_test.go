package auth

import "time"

// WithMintHook makes a TokenSource call f after each mint, while it still
// holds the mint lock: tests count mints and hold a mint in progress.
func WithMintHook(f func()) SourceOption {
	return sourceOptionFunc(func(c *sourceConfig) { c.onMint = f })
}

// WithManualCoarseClock makes a TokenSource (or every source of a Cache)
// read wall both as its precise clock and, through a coarse clock the test
// ticks by hand with the returned function, on the hot path. Unlike WithClock
// it keeps the hot path's behaviour: a token becomes due only when a tick
// shows its refresh time has passed.
func WithManualCoarseClock(wall func() time.Time) (SourceOption, func()) {
	cc := &coarseClock{wall: wall, manual: true}
	return sourceOptionFunc(func(c *sourceConfig) {
		c.clock = wall
		c.coarse = cc
	}), cc.tick
}
