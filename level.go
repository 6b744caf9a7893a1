package bpx

import (
	"fmt"

	"github.com/gobpx/bpx/internal/xzenc"
	"github.com/klauspost/compress/zlib"
)

// Level selects how hard a section's compressor works: a trade of writing
// time, and of the writer's memory, for a smaller section. Every level
// writes standard streams that any reader decodes at its usual speed, and
// the output of a level depends only on the data and the options. The
// zero Level is LevelDefault.
//
// For xz, measured on Go source in 1 MiB sections against
// xz --block-size=1MiB -6 of the same sections (size) and against
// LevelDefault (encoding CPU time), with the benchmarks of internal/xzenc:
//
//	level    xz size vs xz -6   xz encode time   zlib level
//	fast     1.16x              0.6x             1 (BestSpeed)
//	default  1.11x              1x               6 (DefaultCompression)
//	max      1.01x              about 7x         9 (BestCompression)
//
// LevelMax parses optimally, like xz's presets 6 to 9 (and at about
// liblzma's speed), with a binary-tree match finder that holds 8 bytes per
// position of the dictionary: a running compressor needs 13.5 MiB with a
// 1 MiB dictionary and up to 45.5 MiB with 4 MiB or more (the Writer's
// documentation has the whole bound).
type Level uint8

const (
	// LevelDefault balances speed and size: a greedy parse with one step
	// of lazy evaluation (like xz -2), zlib level 6.
	LevelDefault Level = iota
	// LevelFast writes fastest: a shallower xz search, zlib level 1.
	LevelFast
	// LevelMax writes the smallest sections: xz optimal parsing with a
	// binary-tree match finder, zlib level 9.
	LevelMax
)

var levelNames = [...]string{LevelDefault: "default", LevelFast: "fast", LevelMax: "max"}

// String returns the level's name: "default", "fast" or "max".
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// MarshalText returns the level's name.
func (l Level) MarshalText() ([]byte, error) {
	if int(l) >= len(levelNames) {
		return nil, fmt.Errorf("%w: level %d", ErrUnsupported, uint8(l))
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText sets l from a name that String returns, so that a Level
// can be a flag (flag.TextVar) or a JSON field.
func (l *Level) UnmarshalText(b []byte) error {
	for i, n := range levelNames {
		if string(b) == n {
			*l = Level(i)
			return nil
		}
	}
	return fmt.Errorf("%w: level %q (want default, fast or max)", ErrUnsupported, b)
}

// xzOptions returns the encoder parameters of level l.
func (l Level) xzOptions() xzenc.Options {
	switch l {
	case LevelFast:
		return xzenc.Options{Depth: fastXZDepth}
	case LevelMax:
		// Not PresetMax: 0.7% smaller for 1.2 times the time
		// (BenchmarkPresets).
		return xzenc.PresetDefault
	}
	return xzenc.PresetFast
}

// fastXZDepth is LevelFast's hash-chain depth (xz -1 uses 4).
const fastXZDepth = 4

// zlibLevel returns the zlib level of l.
func (l Level) zlibLevel() int {
	switch l {
	case LevelFast:
		return zlib.BestSpeed
	case LevelMax:
		return zlib.BestCompression
	}
	return zlib.DefaultCompression
}
