package blk

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/errclass"
)

// Sentinel errors. Every error returned for bad input matches one of them
// with errors.Is, and also the bpx sentinel of its class: bpx.ErrFormat,
// bpx.ErrTooLarge or bpx.ErrUnsupported.
var (
	// ErrFormat is returned for malformed input; the error is a
	// *FormatError naming the offset. It matches bpx.ErrFormat.
	ErrFormat = errclass.New("blk: invalid format", bpx.ErrFormat)

	// ErrUnsupported is returned for a recognised but unsupported form,
	// such as a first byte that is not a binary BLK kind. It matches
	// bpx.ErrUnsupported.
	ErrUnsupported = errclass.New("blk: unsupported", bpx.ErrUnsupported)

	// ErrTooLarge is returned when the input exceeds a limit (see the
	// package documentation). It comes wrapped in a *FormatError, and
	// matches bpx.ErrTooLarge.
	ErrTooLarge = errclass.New("blk: limit exceeded", bpx.ErrTooLarge)

	// ErrNameMapRequired is returned for SLIM kinds (3, 4, 5) when no
	// shared name map was given. It matches bpx.ErrUnsupported: the file
	// cannot be decoded as configured.
	ErrNameMapRequired = errclass.New("blk: shared name map (nm) required", bpx.ErrUnsupported)

	// ErrDictRequired is returned for SLIM_ZST_DICT when no dictionary,
	// or not the one the frame names, was given. It matches
	// bpx.ErrUnsupported.
	ErrDictRequired = errclass.New("blk: zstd dictionary required", bpx.ErrUnsupported)

	// ErrEncode is returned when a tree cannot be written in the
	// requested form (a NUL in a name, too many params in a block, ...).
	ErrEncode = errors.New("blk: cannot encode")
)

// FormatError describes malformed input: what was wrong and at which byte
// offset. Offsets count from the start of the file, or from the start of
// the decompressed data when In is not empty. Errors of ParseText also
// give the line and the byte column, both counted from 1. It matches
// ErrFormat and bpx.ErrFormat.
type FormatError struct {
	Offset int64
	In     string // "" for the file itself, else e.g. "zstd plaintext"
	What   string
	Err    error // optional cause (ErrTooLarge, a zstd error, ...)

	// Line and Column locate the error in BLK text; 0 for binary input.
	Line, Column int
}

// Error returns "blk: <what> at offset <n>[ of the <unit>][: <cause>]",
// or for text "blk: <what> at line <l>:<c> (offset <n> of the text)".
func (e *FormatError) Error() string {
	var s string
	switch {
	case e.Line > 0:
		s = fmt.Sprintf("blk: %s at line %d:%d (offset %d of the %s)", e.What, e.Line, e.Column, e.Offset, e.In)
	case e.In != "":
		s = fmt.Sprintf("blk: %s at offset %d of the %s", e.What, e.Offset, e.In)
	default:
		s = fmt.Sprintf("blk: %s at offset %d", e.What, e.Offset)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrFormat or bpx.ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat || target == bpx.ErrFormat }

// Unwrap returns the cause.
func (e *FormatError) Unwrap() error { return e.Err }

func encodeErrf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrEncode, fmt.Sprintf(format, args...))
}
