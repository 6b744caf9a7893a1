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
	// model, and codes the cheapest path. On Go source, 7 to 11% smaller
	// than Fast for 3 to 8 times its encode time, depending on the match
	// finder, NiceLen and Depth (BenchmarkNormalParams).
	Normal
)

// MatchFinder selects the data structure that finds earlier occurrences.
type MatchFinder uint8

const (
	// HC4 is a hash chain: one uint32 per position of history. In Fast
	// mode it links 4-byte prefixes; in Normal mode 7-byte ones, with
	// heads for the latest 2-, 3- and 4-byte prefixes.
	HC4 MatchFinder = iota
	// BT4 is a binary tree over 4-byte prefixes, with heads for the latest
	// 2- and 3-byte prefixes: two uint32 per position of history. It
	// finds longer matches than HC4 for the same Depth, at more cost per
	// position. Normal mode only.
	BT4
)

// Options are the encoder's parameters. The zero Options are PresetFast,
// whose output is byte for byte what this package wrote before Options
// existed. For given Options, data and dictionary size the output is
// always the same.
//
// Memory, whatever the data's size: the window of Write, 512 KiB of hash
// heads, and 4 bytes (HC4) or 8 bytes (BT4) per position of history. In
// Fast mode the history is 1 MiB and the window 4 MiB: 8.5 MiB in all.
// In Normal mode the history is the dictionary rounded up to a power of
// two, at most 4 MiB, and the window 3 times that, at least 4 MiB; with
// 1 MiB more of heads and parser state. So with a 1 MiB dictionary HC4
// holds 9.5 MiB and BT4 13.5 MiB; with a 4 MiB one, BT4 holds 45.5 MiB.
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
	// BlockSize is the most data one .xz block holds; 0 means one block
	// for the whole stream. Every block starts with an empty dictionary
	// and model, so a decoder can start at any block: the stream's index
	// says where each one is and how much it holds. Each costs the
	// compression of starting afresh (as a stream of that size would)
	// and about 20 bytes.
	BlockSize int64
}

// Presets: the trade-offs the bpx writer offers as pack levels. Sizes are
// relative to xz --block-size=N -6 on the same sections and speeds to
// PresetFast's, from BenchmarkPresets on 8 MiB of Go source (CPU time;
// BenchmarkNormalParams has the other points tried).
var (
	// PresetFast is the zero Options: greedy + lazy parsing, HC4 with
	// DefaultDepth. 1.11x the size of xz -6 in 1 MiB sections.
	PresetFast = Options{}
	// PresetDefault is Normal mode with BT4, NiceLen 48 and Depth 16:
	// 1.007x xz -6's size in 1 MiB sections, at about 0.15x PresetFast's
	// speed (about liblzma's own speed at -6).
	PresetDefault = Options{Mode: Normal, MatchFinder: BT4, NiceLen: 48, Depth: 16}
	// PresetMax is Normal mode with BT4, NiceLen 96 and Depth 48: 0.993x
	// xz -6's size in 4 MiB sections with a 4 MiB dictionary (0.996x in
	// 1 MiB ones), at about 0.12x PresetFast's speed.
	PresetMax = Options{Mode: Normal, MatchFinder: BT4, NiceLen: 96, Depth: 48}
)

// ErrOptions is returned (wrapped) by Encode and Reset for Options out of
// range.
var ErrOptions = errors.New("xzenc: invalid options")

// Validate reports whether o is in range, with an error wrapping
// ErrOptions if not.
func (o Options) Validate() error {
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
	case o.BlockSize < 0:
		return fmt.Errorf("%w: BlockSize %d", ErrOptions, o.BlockSize)
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
