//go:build unix

package xzenc

import "syscall"

// cpuTime returns the process's CPU time (user + system) in nanoseconds:
// on a shared machine a steadier measure of a benchmark's work than the
// wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
