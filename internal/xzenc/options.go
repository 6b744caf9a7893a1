package xzenc

import (
	"errors"
	"fmt"
)

// Mode selects how the encoder parses its input into literals and
// matches.
type Mode uint8

const (
	// Fast is greedy parsing with one step of lazy evaluation, like xz's
	// presets 0 to 3. It is the zero Mode.
	Fast Mode = iota
	// Normal is price-based optimal parsing, like xz's presets 4 to 9:
	// for a stretch of up to optWindow positions it weighs every match
	// length, the four repeated distances, one-byte "short reps" and
	// literal + rep0 sequences by their cost in bits under the adaptive
	// model, and codes the cheapest path. About 6 to 9% smaller than Fast
	// on Go source, for 2 to 5 times the encode time.
	Normal
)

// MatchFinder selects the data structure that finds earlier occurrences.
type MatchFinder uint8

const (
	// HC4 is a hash chain over 4-byte prefixes (plus 2- and 3-byte hash
	// heads in Normal mode): one uint32 per position of history.
	HC4 MatchFinder = iota
	// BT4 is a binary tree over 4-byte prefixes: two uint32 per position
	// of history. It finds longer matches than HC4 for the same Depth and
	// sorts the history as it goes, at more cost per position. Normal
	// mode only.
	BT4
)

// Options are the encoder's parameters. The zero Options are PresetFast:
// the output of an Encoder with zero Options does not change from one
// version to the next.
//
// Memory: the window of Write (at most 4 MiB, or 8 MiB in Normal mode
// with a dictionary above 1 MiB), 512 KiB of hash heads, and per
// position of history (1 MiB, or the dictionary rounded up to a power of
// two up to 4 MiB in Normal mode) 4 bytes for HC4 or 8 bytes for BT4,
// plus about 300 KiB of parser state in Normal mode. PresetMax with a
// 4 MiB dictionary thus holds about 41 MiB.
type Options struct {
	// Mode is the parser; the zero value is Fast.
	Mode Mode
	// MatchFinder is HC4 (the zero value) or BT4 (Normal mode only).
	MatchFinder MatchFinder
	// NiceLen is the match length that is taken without looking for a
	// longer one (8 to 273; 0 means 96 in Fast mode and 32 in Normal
	// mode). Longer means smaller output and slower encoding.
	NiceLen int
	// Depth is the number of candidates examined per position (hash chain
	// links or tree nodes, 1 to 1<<16); 0 means DefaultDepth in Fast mode
	// and 16 + NiceLen/2 in Normal mode.
	Depth int
}

// Presets: the trade-offs the bpx writer offers as pack levels. Sizes and
// times are from BenchmarkPresets on 8 MiB of Go source in 1 MiB
// sections, against xz --block-size=1MiB -6 and against PresetFast.
var (
	// PresetFast is the zero Options: greedy + lazy parsing, HC4 with
	// DefaultDepth. About 1.10x the size of xz -6.
	PresetFast = Options{}
	// PresetDefault is Normal mode with HC4, NiceLen 32 and Depth 16:
	// about 1.01x xz -6's size at a third of Fast's speed.
	PresetDefault = Options{Mode: Normal, MatchFinder: HC4, NiceLen: 32, Depth: 16}
	// PresetMax is Normal mode with BT4, NiceLen 64 and Depth 48, like
	// xz -6 (with a dictionary as large as the section).
	PresetMax = Options{Mode: Normal, MatchFinder: BT4, NiceLen: 64, Depth: 48}
)

// ErrOptions is returned (wrapped) by Encode and Reset for Options out of
// range.
var ErrOptions = errors.New("xzenc: invalid options")

// validate checks o.
func (o Options) validate() error {
	switch {
	case o.Mode > Normal:
		return fmt.Errorf("%w: mode %d", ErrOptions, o.Mode)
	case o.MatchFinder > BT4:
		return fmt.Errorf("%w: match finder %d", ErrOptions, o.MatchFinder)
	case o.MatchFinder == BT4 && o.Mode != Normal:
		return fmt.Errorf("%w: BT4 needs Normal mode", ErrOptions)
	case o.NiceLen != 0 && (o.NiceLen < 8 || o.NiceLen > maxMatchLen):
		return fmt.Errorf("%w: NiceLen %d not in 8..%d", ErrOptions, o.NiceLen, maxMatchLen)
	case o.Depth < 0 || o.Depth > 1<<16:
		return fmt.Errorf("%w: Depth %d not in 0..65536", ErrOptions, o.Depth)
	}
	return nil
}

// nice returns NiceLen with its default applied.
func (o Options) nice() int {
	switch {
	case o.NiceLen != 0:
		return o.NiceLen
	case o.Mode == Normal:
		return 32
	}
	return niceLen
}

// depth returns Depth with its default applied.
func (o Options) depth() int {
	switch {
	case o.Depth != 0:
		return o.Depth
	case o.Mode == Normal:
		return 16 + o.nice()/2
	}
	return DefaultDepth
}
