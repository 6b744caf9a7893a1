package pack

import (
	"hash/fnv"
	"math"
)

// stableBlockSize is sectionEnd's scale for the xz blocks of
// WithStableSections: blocks of about 128 KiB.
const stableBlockSize = 256 << 10

// sectionEnd reports whether a section of WithStableSections ends after
// the object named path, of size bytes, which brings the section to used
// bytes of at most sec: when the section holds an eighth of sec and the
// path's 64-bit FNV-1a hash, as a fraction of 2^64, is below size / (3/8
// sec). Each byte of an object then ends a section with the same chance,
// so sections average about half of sec, and where they end depends on
// the objects around the end alone: a change elsewhere moves no end.
func sectionEnd(path string, size, used, sec int64) bool {
	if used < sec/8 {
		return false
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	return float64(h.Sum64())/math.Exp2(64) < float64(size)/(float64(sec)*3/8)
}
