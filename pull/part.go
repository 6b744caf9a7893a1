package pull

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrBusy is the error of a pull of a file that another pull is updating.
var ErrBusy = errors.New("pull: another pull of this file is running")

// errNotOwn marks a file at LOCAL.part's name that this pull may not use:
// not a regular file this user created for a pull (a link, a hard link, a
// FIFO, another user's file, or one others could write).
var errNotOwn = errors.New("not a file of this pull's own")

// openPart opens LOCAL.part for writing, locked against other pulls: the
// interrupted pull's, if it is a file of this user's own that nobody else
// can write and no other name links to (ownPart), else a new file created
// in its place (whatever was at the name is removed, never written: a
// link is not followed). The lock is held until the file is renamed over
// LOCAL or removed: a file locked is the file at the name LOCAL.part when
// the lock was taken, so that two pulls of one LOCAL never write into the
// same file.
func (p *puller) openPart() error {
	for try := 0; ; try++ {
		f, err := openOwnPart(p.part)
		if err != nil {
			return err
		}
		if !lockFile(f) {
			f.Close()
			return fmt.Errorf("%w: %s is locked", ErrBusy, p.part)
		}
		// Another pull may have renamed or removed the file between the
		// open and the lock: it must still be the one at the name.
		fi, err1 := f.Stat()
		at, err2 := os.Lstat(p.part)
		if err1 == nil && err2 == nil && os.SameFile(fi, at) {
			p.out = f
			return nil
		}
		f.Close()
		if try == 3 {
			return fmt.Errorf("%w: %s keeps changing", ErrBusy, p.part)
		}
	}
}

// openOwnPart opens the file at name for reading and writing if it is one
// of this user's own (ownPart), or else removes what is at the name and
// creates a new file there, readable and writable by this user alone
// (replace gives it its final mode).
func openOwnPart(name string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := openNoFollow(name, os.O_RDWR)
		if err == nil {
			if err = ownPart(f); err == nil {
				return f, nil
			}
			f.Close()
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A link, a FIFO, another user's file: the name goes, not
			// what it names.
			if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				return nil, fmt.Errorf("pull: %s is in the way (%v) and cannot be removed: %w", name, err, rerr)
			}
		}
		f, err = createNoFollow(name)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 3 {
			return f, err
		}
		// Another pull created it meanwhile: open that one.
	}
}

// openPartForPlan opens LOCAL.part for reading if it is a file a pull may
// resume (ownPart), or returns nil: Plan reads what Pull would keep.
func openPartForPlan(name string) (*os.File, error) {
	f, err := openNoFollow(name, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) || err != nil && !isIOError(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if ownPart(f) != nil {
		f.Close()
		return nil, nil
	}
	return f, nil
}

// isIOError reports whether err opening a file is one of the file
// system's (not one of what the name is: a link, a FIFO).
func isIOError(err error) bool {
	return !errors.Is(err, errNotOwn) && !errors.Is(err, fs.ErrPermission) && !isLinkError(err)
}

// openLocal opens a local file to read chunks from (LOCAL or a seed) if it
// is a regular file, without waiting on a FIFO or a device: an error
// matching fs.ErrNotExist if there is none, one wrapping errNotRegular if
// it is something else.
func openLocal(name string) (*os.File, error) {
	f, err := openNonBlocking(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%v)", errNotRegular, fi.Mode().Type())}
	}
	return f, nil
}

// errNotRegular is the error of a local file that is no regular file.
var errNotRegular = errors.New("not a regular file")
