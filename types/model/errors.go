package model

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx"
)

// Sentinel errors, usable with errors.Is.
var (
	// ErrFormat is matched by every error Read and ParseTypeExt return for
	// a malformed model, together with bpx.ErrFormat.
	ErrFormat = errors.New("model: invalid model file")
	// ErrInvalid is matched by the errors of Validate, Write, Encode and the
	// accessors' constructors: the model or argument cannot be used as
	// given.
	ErrInvalid = errors.New("model: invalid model")
)

// formatErr returns a *bpx.FormatError matching ErrFormat. section is the
// 0-based section index, or -1 for a file offset.
func formatErr(section int, off int64, format string, args ...any) error {
	return &bpx.FormatError{Offset: off, Section: section, What: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("model: "+format+": %w", append(args, ErrInvalid)...)
}
