package pack

import (
	"fmt"
	"io/fs"
	"os"
)

// editGuard keeps an in-place edit from replacing a package that another
// edit saved meanwhile. It holds the package file open and, where the
// system has advisory locks (lockFile), locked for the whole edit, so that
// a second edit of the same package waits for the first; it records the
// file's identity, size and modification time, and check, run just before
// the edited package is renamed over the file, fails with ErrChanged if
// the file at that name is no longer the same, unchanged file. The edit
// that waited thus fails clearly instead of undoing the first. The lock is
// on the package file itself, which the rename replaces: an edit that
// waited on the old file finds the name holding another file and fails.
// Nothing is left behind (no lock file); the system drops the lock when
// the process ends, however it ends.
type editGuard struct {
	f    *os.File    // the package file, locked; nil if not in place
	name string      // the file replaced by the edit
	fi   fs.FileInfo // the package file when the edit started
}

// guardEdit starts guarding the edit of the package src written to out;
// only an edit in place (out is src, or the file src leads to) is guarded.
// It fails with ErrChanged if the package was replaced while it waited for
// another edit. Errors opening src are left to opening the package to
// report.
func guardEdit(src, out string) (*editGuard, error) {
	g := &editGuard{name: out}
	if a, err := os.Stat(src); err != nil {
		return g, nil
	} else if b, err := os.Lstat(out); err != nil || !os.SameFile(a, b) {
		return g, nil // not in place
	}
	f, err := os.Open(src)
	if err != nil {
		return g, nil
	}
	lockFile(f) // waits for another edit; without locks, check alone guards
	if g.fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, fmt.Errorf("pack: %s: %w", src, err)
	}
	g.f = f
	if err := g.check(); err != nil {
		g.release()
		return nil, err
	}
	return g, nil
}

// check returns an error matching ErrChanged if the guarded package file
// was replaced or changed since the edit started.
func (g *editGuard) check() error {
	if g.fi == nil {
		return nil
	}
	cur, err := os.Lstat(g.name)
	if err != nil || !os.SameFile(g.fi, cur) {
		return fmt.Errorf("%w: %s was replaced by another file (another edit saved first); the edit was not saved, run it again", ErrChanged, g.name)
	}
	if cur.Size() != g.fi.Size() || !cur.ModTime().Equal(g.fi.ModTime()) {
		return fmt.Errorf("%w: %s was written to during the edit; the edit was not saved, run it again", ErrChanged, g.name)
	}
	return nil
}

// release unlocks and closes the package file.
func (g *editGuard) release() {
	if g.f != nil {
		g.f.Close() // drops the lock
	}
}
