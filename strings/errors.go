package strings

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx/bpxerr"
)

// Sentinel errors. Every *Error also matches bpx.ErrFormat (or
// bpx.ErrTooLarge for [ErrTooLarge]) with errors.Is.
var (
	// ErrOutOfRange is returned by [Table.Get] for an offset at or past the
	// end of the section.
	ErrOutOfRange = errors.New("strings: offset out of range")

	// ErrUnterminated is returned by [Table.Get] when the section ends
	// before the NUL that terminates the string.
	ErrUnterminated = errors.New("strings: missing NUL terminator")

	// ErrInvalidUTF8 is returned by [Table.Get] for a string that is not
	// valid UTF-8, and by [Builder.Add] for such a string.
	ErrInvalidUTF8 = errors.New("strings: invalid UTF-8")

	// ErrNUL is returned by [Builder.Add] for a string that contains a NUL
	// byte: it would be cut short when read back.
	ErrNUL = errors.New("strings: string contains a NUL byte")

	// ErrTooLarge is returned by [Builder.Add] when the section would grow
	// past [MaxSize] bytes, beyond what a 32-bit string pointer can address.
	ErrTooLarge = errors.New("strings: section too large")
)

// Error reports a bad string at a byte offset of the section.
// Err is one of the sentinels of this package.
type Error struct {
	Offset int64 // byte offset in the section (of the string, or of the first bad byte)
	Err    error // ErrOutOfRange, ErrUnterminated, ErrInvalidUTF8, ErrNUL or ErrTooLarge
}

// Error returns the message, ending with where the problem is.
func (e *Error) Error() string {
	return fmt.Sprintf("%v at offset %d", e.Err, e.Offset)
}

// Unwrap returns the sentinel and the matching bpx sentinel, so that both
// errors.Is(err, strings.ErrUnterminated) and errors.Is(err, bpx.ErrFormat)
// hold.
func (e *Error) Unwrap() []error {
	if e.Err == ErrTooLarge {
		return []error{e.Err, bpxerr.ErrTooLarge}
	}
	return []error{e.Err, bpxerr.ErrFormat}
}
