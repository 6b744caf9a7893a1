package bpx

import (
	"fmt"

	"github.com/gobpx/bpx/bpxerr"
)

// Sentinel errors. Every error returned by this module for bad input,
// failed verification or an unsupported feature matches one of these with
// errors.Is. They are the errors of package [bpxerr], re-exported, so that
// errors of the packages usable without the container (sd, strings) match
// them too.
var (
	// ErrFormat is returned when the input is not a well-formed BPX
	// container: bad magic, truncated header or table, a section that
	// points outside the file, a stream that decodes to the wrong size.
	ErrFormat = bpxerr.ErrFormat

	// ErrChecksum is returned when the header checksum or a section
	// checksum does not match the data.
	ErrChecksum = bpxerr.ErrChecksum

	// ErrUnsupported is returned for a version, compression or feature
	// this package does not implement (or that an option disabled).
	ErrUnsupported = bpxerr.ErrUnsupported

	// ErrTooLarge is returned when the input exceeds one of the
	// configured limits (section count, section size, xz dictionary).
	ErrTooLarge = bpxerr.ErrTooLarge

	// ErrSignature is returned when a file that must be signed (package
	// sign) is not, is signed by no trusted key, or does not match its
	// signature.
	ErrSignature = bpxerr.ErrSignature
)

// FormatError describes malformed input: what was wrong and at which byte
// offset of the file (or of the section, when Section is not negative).
// It matches ErrFormat with errors.Is.
type FormatError struct {
	Offset  int64  // byte offset of the bad field
	Section int    // 0-based section index, or -1 for container-level fields
	What    string // what was wrong
	Err     error  // optional underlying cause
}

// NewFormatError returns a container-level *FormatError (Section -1).
// It is meant for the sibling packages of this module that parse
// BPX section content.
func NewFormatError(off int64, what string, args ...any) *FormatError {
	return &FormatError{Offset: off, Section: -1, What: fmt.Sprintf(what, args...)}
}

// Error describes the problem, the section and the offset.
func (e *FormatError) Error() string {
	s := "bpx: "
	if e.Section >= 0 {
		s += fmt.Sprintf("section %d: ", e.Section)
	}
	s += fmt.Sprintf("%s at offset %d", e.What, e.Offset)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports whether target is ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// ChecksumError reports a checksum mismatch. It matches ErrChecksum.
type ChecksumError struct {
	Section  int // -1 for the main header checksum
	Expected uint32
	Actual   uint32
}

// Error reports both checksums.
func (e *ChecksumError) Error() string {
	if e.Section < 0 {
		return fmt.Sprintf("bpx: header checksum mismatch (stored %#x, computed %#x)", e.Expected, e.Actual)
	}
	return fmt.Sprintf("bpx: section %d: checksum mismatch (stored %#x, computed %#x)", e.Section, e.Expected, e.Actual)
}

// Is reports whether target is ErrChecksum.
func (e *ChecksumError) Is(target error) bool { return target == ErrChecksum }
