//go:build unix

package rules

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time (user and system): the benchmarks
// report it per operation besides the wall time, which a loaded machine
// stretches.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
