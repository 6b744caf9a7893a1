//go:build unix

package pull

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// openNoFollow opens name with flag (os.O_RDONLY or os.O_RDWR), failing
// on a symbolic link (isLinkError) and without waiting on a FIFO.
func openNoFollow(name string, flag int) (*os.File, error) {
	return os.OpenFile(name, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// createNoFollow creates name, which must not exist (a link at the name
// is not followed: it exists), readable and writable by this user alone.
func createNoFollow(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
}

// openNonBlocking opens name for reading without waiting on a FIFO.
func openNonBlocking(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// isLinkError reports whether err is openNoFollow's on a symbolic link.
func isLinkError(err error) bool { return errors.Is(err, syscall.ELOOP) }

// ownPart checks that f is a file a pull may resume and write: a regular
// file of this user's (so that it cannot stay another user's after the
// rename), that no other name links to (a hard link to LOCAL or to any
// other file would be written through) and that only this user can
// write (nobody else can change it between its check and the rename).
func ownPart(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: a %v", errNotOwn, fi.Mode().Type())
	case !ok:
		return fmt.Errorf("%w: no owner known", errNotOwn)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: owned by user %d", errNotOwn, st.Uid)
	case st.Nlink != 1:
		return fmt.Errorf("%w: %d names link to it", errNotOwn, st.Nlink)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%w: mode %v", errNotOwn, fi.Mode().Perm())
	}
	return nil
}

// renameOpen is whether a file may be renamed and removed while open: the
// lock is then held through the rename.
const renameOpen = true

// newMode is the mode of a new file as the process's umask makes it from
// 0666: the mode a first download gets. The umask is read from
// /proc/self/status where there is one (Linux): setting it to read it
// back, the other way, races with files other goroutines create.
func newMode() os.FileMode {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return 0o666 &^ os.FileMode(m) & os.ModePerm
				}
			}
		}
	}
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return 0o666 &^ os.FileMode(m) & os.ModePerm
}
