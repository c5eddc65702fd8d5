//go:build !race

package scribetest_test

// raceEnabled reports a build with the race detector.
const raceEnabled = false
