//go:build unix

package scribe_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the test process has used
// so far. On a shared machine wall-clock ns/op includes the time spent waiting
// for a CPU; CPU time per op does not, which makes same-run ratios steadier.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
