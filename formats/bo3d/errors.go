package bo3d

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/errclass"
)

// Sentinel errors, usable with errors.Is. The errors of Decode, Read and
// ReadModel also match the bpx sentinel of their class (bpx.ErrFormat,
// bpx.ErrUnsupported or bpx.ErrTooLarge), like those of every decoder of
// the module.
var (
	// ErrFormat is matched by every *FormatError: the input is not a
	// well-formed BO3D file. It matches bpx.ErrFormat.
	ErrFormat = errclass.New("bo3d: invalid format", bpx.ErrFormat)
	// ErrUnsupported is returned (wrapped in a *FormatError) for a version
	// newer than [Version] or a vertex float width other than 16 or 32. It
	// matches bpx.ErrUnsupported.
	ErrUnsupported = errclass.New("bo3d: unsupported feature", bpx.ErrUnsupported)
	// ErrInvalid is returned by Encode, Validate and the model conversion
	// when the data cannot be written or is inconsistent (a parent after
	// its child, a triangle index past the vertices, a count too large...).
	// From ReadModel, where the data comes from a file, such errors also
	// match bpx.ErrFormat.
	ErrInvalid = errors.New("bo3d: invalid data")
	// ErrTooLarge is returned by Read for input larger than [MaxFileSize].
	// It matches bpx.ErrTooLarge.
	ErrTooLarge = errclass.New("bo3d: input too large", bpx.ErrTooLarge)
)

// FormatError describes malformed input: what was wrong, in which entity and
// at which byte offset of the file. It matches ErrFormat and bpx.ErrFormat
// with errors.Is, and its Err (if any) too.
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

// Is reports whether target is ErrFormat or bpx.ErrFormat.
func (e *FormatError) Is(target error) bool { return target == ErrFormat || target == bpx.ErrFormat }

// Unwrap returns the cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// errModelFormat prefixes the ErrInvalid errors of ReadModel: there the
// inconsistent model comes from a file, so they are format errors too.
var errModelFormat = errclass.New("bo3d: the model in the container does not make a BO3D file", bpx.ErrFormat)

func formatErr(entity int, off int64, format string, args ...any) *FormatError {
	return &FormatError{Entity: entity, Offset: off, What: fmt.Sprintf(format, args...)}
}

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("bo3d: "+format+": %w", append(args, ErrInvalid)...)
}
