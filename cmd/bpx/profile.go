package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of this run to the file named by
// $BPX_CPUPROFILE, if set: bench/pgo.sh merges such profiles into
// default.pgo, the profile "go build" uses to optimize bpx. It returns the
// function that ends the profile. Problems are reported on stderr.
func startCPUProfile(stderr io.Writer) (stop func()) {
	name := os.Getenv("BPX_CPUPROFILE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bpx: BPX_CPUPROFILE: %v\n", err)
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
