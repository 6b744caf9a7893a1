package table

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx/bpxerr"
	"github.com/gobpx/bpx/internal/errclass"
)

// Errors for bad input. Each also matches bpx.ErrFormat (or bpx.ErrTooLarge
// for [ErrRowTooLarge]) with errors.Is; [Decode] returns them inside an
// [*Error] that says where.
var (
	// ErrTruncated is returned for a section too short for its header or
	// column table, or whose rows do not fill it exactly.
	ErrTruncated = errclass.New("table: section truncated", bpxerr.ErrFormat)

	// ErrBadType is returned for a column type code above 12.
	ErrBadType = errclass.New("table: unknown column type", bpxerr.ErrFormat)

	// ErrInvalidUTF8 is returned for a Varchar cell of a live row that is
	// not valid UTF-8.
	ErrInvalidUTF8 = errclass.New("table: invalid UTF-8 in a varchar cell", bpxerr.ErrFormat)

	// ErrRowTooLarge is returned when the values of a row take more than
	// [MaxRowSize] bytes.
	ErrRowTooLarge = errclass.New("table: row too large", bpxerr.ErrTooLarge)
)

// Errors for a caller's mistake: a column that does not exist, a value of
// the wrong type, or one that does not fit. They match no bpx sentinel.
var (
	// ErrNoColumn is returned when a table has no column of the given name.
	ErrNoColumn = errors.New("table: no such column")

	// ErrType is returned when a value does not suit a column's type: a
	// Go value of another kind, a scalar for an array or the reverse, or
	// an array of the wrong length.
	ErrType = errors.New("table: wrong type for column")

	// ErrRange is returned when a value does not fit its destination: an
	// integer out of range, a float too large for float32, a string
	// longer than its column.
	ErrRange = errors.New("table: value out of range")
)

// Error reports bad input at a byte offset of the section.
type Error struct {
	Offset int64  // byte offset in the section
	What   string // the structure at fault, such as "column 3 type"
	Err    error  // a sentinel of this package, or a strings error for a name
}

// Error returns the message, ending with where the problem is, such as
// "table: section truncated (column 3 of 5 at table offset 32)". (An
// offset inside Err, from the strings package, is one in the strings
// section.)
func (e *Error) Error() string {
	return fmt.Sprintf("%v (%s at table offset %d)", e.Err, e.What, e.Offset)
}

// Unwrap returns Err, which matches a bpx sentinel.
func (e *Error) Unwrap() error { return e.Err }
