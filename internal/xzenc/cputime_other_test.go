//go:build !unix

package xzenc

// cpuTime is 0 where the process's CPU time is not at hand: the
// benchmarks then compare wall times.
func cpuTime() int64 { return 0 }
