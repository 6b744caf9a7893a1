package sd

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx/bpxerr"
)

// Sentinel errors. Decoding errors are *SyntaxError values that match one
// of these and bpx.ErrFormat (bpx.ErrTooLarge for [ErrDepth]) with
// errors.Is. Encoding errors wrap one of these with the path of the bad
// value.
var (
	// ErrTruncated: the data ends inside a value.
	ErrTruncated = errors.New("sd: unexpected end of data")

	// ErrTypeCode: a type code that is not 0 to 14.
	ErrTypeCode = errors.New("sd: unknown type code")

	// ErrUnterminated: a String runs to the end of the data without a NUL.
	ErrUnterminated = errors.New("sd: string without NUL terminator")

	// ErrInvalidUTF8: a String that is not valid UTF-8 (decoding), or a
	// string to encode that is not valid UTF-8 or contains a NUL byte.
	ErrInvalidUTF8 = errors.New("sd: invalid string")

	// ErrBool: a Bool byte other than 0 or 1, with
	// [StrictBool] only.
	ErrBool = errors.New("sd: invalid boolean byte")

	// ErrDepth: the value nests deeper than the maximum depth, or holds
	// more containers than [WithContainerBudget] allows.
	ErrDepth = errors.New("sd: maximum depth for nested values exceeded")

	// ErrCapacity: an Object or Array with more than 255 entries cannot be
	// encoded (the wire count is one byte).
	ErrCapacity = errors.New("sd: more than 255 entries")

	// ErrSyntax: JSON that is malformed or, for typed JSON, does not
	// follow the typed form.
	ErrSyntax = errors.New("sd: invalid JSON")
)

// SyntaxError reports malformed BPXSD data at a byte offset of the decoded
// buffer (the start of the section when decoding a section).
type SyntaxError struct {
	Offset int64  // byte offset of the bad type code, count, value or string
	Err    error  // one of the sentinels above
	Detail string // optional specifics, such as the bad code
}

// Error returns the message, ending with where the problem is.
func (e *SyntaxError) Error() string {
	msg := e.Err.Error()
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return fmt.Sprintf("%s at offset %d", msg, e.Offset)
}

// Unwrap returns the sentinel and the matching bpx sentinel (bpx.ErrFormat,
// or bpx.ErrTooLarge for a limit), for errors.Is.
func (e *SyntaxError) Unwrap() []error {
	if e.Err == ErrDepth {
		return []error{e.Err, bpxerr.ErrTooLarge}
	}
	return []error{e.Err, bpxerr.ErrFormat}
}

// EncodeError reports a value that cannot be encoded, with its path from
// the root object, such as .tags[300] or .#000000017c9b0c46.
type EncodeError struct {
	Path string
	Err  error // ErrCapacity, ErrInvalidUTF8, ErrDepth or ErrTypeCode
}

// Error returns the message, ending with where the problem is.
func (e *EncodeError) Error() string {
	if e.Path == "" {
		return e.Err.Error() + " at the root"
	}
	return e.Err.Error() + " at " + e.Path
}

// Unwrap returns the sentinel.
func (e *EncodeError) Unwrap() error { return e.Err }
