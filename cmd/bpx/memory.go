package main

import (
	"os"
	"runtime/debug"
)

// memoryUse says how a command sets up the garbage collector.
type memoryUse int

const (
	defaultMemory memoryUse = iota // the runtime's defaults
	boundedMemory                  // boundMemory: pack and unpack
	quickMemory                    // collectLate: commands that read tables and exit
	serverMemory                   // limitServer: bpx serve
)

// apply sets up the garbage collector for m.
func (m memoryUse) apply() {
	switch m {
	case boundedMemory:
		boundMemory()
	case quickMemory:
		collectLate()
	case serverMemory:
		limitServer()
	}
}

// packMemoryLimit is the Go heap limit "bpx pack" and "bpx unpack" set
// unless GOMEMLIMIT is given: the garbage collector then keeps their peak
// RSS under about 56 MiB for a tree like $(go env GOROOT)/src.
const packMemoryLimit = 48 << 20

func boundMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(packMemoryLimit)
	}
}

// quickMemoryLimit is the heap size below which the commands that only
// read tables ("ls", "info", "cat") do not collect garbage at all.
const quickMemoryLimit = 64 << 20

// collectLate turns the garbage collector off until the heap reaches
// quickMemoryLimit, unless GOGC or GOMEMLIMIT is given. These commands
// allocate a package's tables once and exit: collecting at the default
// 4 MiB goal costs "bpx ls" of a 11,500-object package about a quarter of
// its run time, and the limit still bounds a package with millions of
// objects.
func collectLate() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(quickMemoryLimit)
	}
}

// serveMemoryLimit is the soft memory limit of "bpx serve" unless
// GOMEMLIMIT is given: the preview budget (explorer.MaxPreviewBytes,
// 192 MiB) with room for the garbage collector, which works harder as the
// heap nears it, so that the server's peak RSS stays under 512 MiB
// whatever its clients ask (TestServeHostile: about 430 MiB with 32
// clients; 448 MiB let it reach 499 MiB once 4096x4096 textures
// previewed).
const serveMemoryLimit = 384 << 20

func limitServer() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
}
