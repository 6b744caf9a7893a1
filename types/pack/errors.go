package pack

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx"
)

var (
	// ErrNotPackage is returned when a container's Type byte is not 'P'.
	// It also matches bpx.ErrFormat.
	ErrNotPackage = errors.New("pack: not a package (type byte is not 'P')")

	// ErrInsecurePath is returned by Unpack (and by the fs.FS methods,
	// as fs.ErrNotExist) for an object name that is not a valid, unique,
	// relative fs path: absolute, containing "..", empty, a duplicate or
	// both a file and a directory. Such objects stay readable through
	// Package.Objects and Package.OpenObject.
	ErrInsecurePath = errors.New("pack: insecure or invalid object path")

	// ErrObjectRange is returned when an object's Start, Offset or Size
	// points outside the package's data sections (the reference SDK
	// silently truncates or hangs on such objects), and by Unpack and
	// CheckObjects when its data is in a section that the file does not
	// hold whole (a package cut short). It also matches bpx.ErrFormat.
	ErrObjectRange = errors.New("pack: object data out of range")

	// ErrNotRegular is returned, in an *fs.PathError naming the entry, by
	// AddFS, Diff and WritePatch for an entry of a tree that is neither a
	// regular file nor a directory, nor a symbolic link to one: a named
	// pipe, a device or a socket. Refusing it, rather than skipping it,
	// keeps a tree from being packed without a file or called the same as
	// one that holds it.
	ErrNotRegular = errors.New("pack: not a regular file or directory")

	// ErrDanglingLink is returned, in an *fs.PathError naming the link
	// (and saying where it leads), by WalkTree, and so by AddFS, Diff and
	// WritePatch, for a symbolic link that leads to nothing: it is never
	// skipped silently (WalkTree's dangling function may skip it).
	ErrDanglingLink = errors.New("pack: dangling symbolic link")

	// ErrLinkLoop is returned, in an *fs.PathError naming the link, by
	// WalkTree, and so by AddFS, Diff and WritePatch, for a symbolic link
	// that leads to a directory it is in: following it would never end.
	ErrLinkLoop = errors.New("pack: symbolic link to a directory that holds it")

	// ErrChanged is returned by EditFile (and EditFileTo editing a package
	// in place) when the package file was replaced or written while the
	// edit ran, typically by another edit: the edit is not saved, so that
	// the other one is not lost. Run it again.
	ErrChanged = errors.New("pack: the package changed during the edit")
)

// ObjectError reports a problem with one object of a package. It matches its
// Err and, unless Err is ErrInsecurePath, bpx.ErrFormat.
type ObjectError struct {
	Index int    // the object's position in the object table
	Name  string // the object's name, as far as it could be read
	What  string // what is wrong
	Err   error  // ErrObjectRange, ErrInsecurePath or an underlying error
}

// Error names the object by index and name.
func (e *ObjectError) Error() string {
	return fmt.Sprintf("pack: object %d (%q): %s", e.Index, e.Name, e.What)
}

// Unwrap returns Err.
func (e *ObjectError) Unwrap() error { return e.Err }

// Is reports whether target is bpx.ErrFormat for malformed objects.
func (e *ObjectError) Is(target error) bool {
	return target == bpx.ErrFormat && e.Err != ErrInsecurePath
}

// formatError returns a container-level *bpx.FormatError.
func formatError(off int64, format string, args ...any) error {
	return bpx.NewFormatError(off, format, args...)
}
