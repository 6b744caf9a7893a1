//go:build !unix

package pull

import (
	"fmt"
	"os"
)

// openNoFollow opens name with flag (os.O_RDONLY or os.O_RDWR), failing
// on a symbolic link (isLinkError).
func openNoFollow(name string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: name, Err: errLink}
	}
	return os.OpenFile(name, flag, 0)
}

var errLink = fmt.Errorf("%w: a symbolic link", errNotOwn)

// createNoFollow creates name, which must not exist.
func createNoFollow(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// openNonBlocking opens name for reading.
func openNonBlocking(name string) (*os.File, error) { return os.Open(name) }

// isLinkError reports whether err is openNoFollow's on a symbolic link.
func isLinkError(err error) bool { return false }

// ownPart checks that f is a regular file: this system has no owners or
// link counts to check here.
func ownPart(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: a %v", errNotOwn, fi.Mode().Type())
	}
	return nil
}

// renameOpen is whether a file may be renamed and removed while open:
// Windows renames and removes no open file, so the lock (none here, see
// lockFile) ends before.
const renameOpen = false

// newMode is the mode a first download gets.
func newMode() os.FileMode { return 0o666 }
