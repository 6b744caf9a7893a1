package bo3d

import (
	"errors"
	"fmt"
)

// Sentinel errors, usable with errors.Is.
var (
	// ErrFormat is matched by every *FormatError: the input is not a
	// well-formed BO3D file.
	ErrFormat = errors.New("bo3d: invalid format")
	// ErrUnsupported is returned (wrapped in a *FormatError) for a version
	// newer than [Version] or a vertex float width other than 16 or 32.
	ErrUnsupported = errors.New("bo3d: unsupported feature")
	// ErrInvalid is returned by Encode, Validate and the model conversion
	// when the data cannot be written or is inconsistent (a parent after
	// its child, a triangle index past the vertices, a count too large...).
	ErrInvalid = errors.New("bo3d: invalid data")
	// ErrTooLarge is returned by Read for input larger than [MaxFileSize].
	ErrTooLarge = errors.New("bo3d: input too large")
)

// FormatError describes malformed input: what was wrong, in which entity and
// at which byte offset of the file. It matches ErrFormat with errors.Is, and
// its Err (if any) too.
type FormatError struct {
	Entity int   // 0-based entity index, or -1 for the file header
	Offset int64 // absolute byte offset of the bad field or list
	What   string
	Err    error // optional cause, e.g. ErrUnsupported
}

// Error names the entity and the offset.
func (e *FormatError) Error() string {
	s := "bo3d: "
	if e.Entity >= 0 {
		s += fmt.Sprintf("entity %d: ", e.Entity)
	}
	return s + fmt.Sprintf("%s at offset %d", e.What, e.Offset)
}

// Is reports whether target is ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

// Unwrap returns the cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(entity int, off int64, format string, args ...any) *FormatError {
	return &FormatError{Entity: entity, Offset: off, What: fmt.Sprintf(format, args...)}
}

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("bo3d: "+format+": %w", append(args, ErrInvalid)...)
}
