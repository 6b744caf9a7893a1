package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/types/pack"
)

// treeSnapshot is a directory tree as it was listed before a command
// created its output: the commands that pack a tree into a file walk the
// snapshot, not the directory, so that the temporary file the output is
// written to (created after the listing) is never packed, even when it
// lies in the tree. Listing first, rather than recognising the temporary
// file, needs nothing from bpx.SaveFile and also leaves out any file that
// appears during the walk. Files that are the output or the package being
// edited (by identity, os.SameFile, so through any path or link to them)
// are left out of the listing too: a package never holds itself.
type treeSnapshot struct {
	fsys     fs.FS
	names    map[string]bool // every file and directory listed, and the roots
	size     int64           // of the regular files listed
	skipped  []string        // the names left out as one of the excluded files
	dangling []string        // the dangling symbolic links left out (--skip-dangling)
}

// linkDoc tells, in the help of the commands that read a directory tree,
// how they take symbolic links.
const linkDoc = `
Symbolic links to files and directories are followed: a link is read as
what it leads to, under its own name. A link to a directory that holds it
is an error, and so is a dangling link (one that leads nowhere), unless
--skip-dangling skips such links, each named on standard error: nothing is
ever left out silently.`

// linkFlag is the --skip-dangling flag of the commands that read a
// directory tree, which follow symbolic links (pack.WalkTree).
type linkFlag struct{ skipDangling bool }

func (l *linkFlag) define(fs *flag.FlagSet) {
	fs.BoolVar(&l.skipDangling, "skip-dangling", false, "skip symbolic links that lead nowhere, listing them on standard error, instead of failing")
}

// hint adds to an error about a dangling link the flag that skips such
// links.
func (l *linkFlag) hint(err error) error {
	if errors.Is(err, pack.ErrDanglingLink) {
		return fmt.Errorf("%w: --skip-dangling skips such links", err)
	}
	return err
}

// snapshotTree lists the trees of fsys at roots as pack.WalkTree walks
// them (following symbolic links), leaving out the regular files that are
// the files excluded names (those that do not exist are ignored) and, with
// skipDangling, the links that lead nowhere.
func snapshotTree(fsys fs.FS, roots []string, skipDangling bool, excluded ...string) (*treeSnapshot, error) {
	var ex []os.FileInfo
	for _, name := range excluded {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			ex = append(ex, fi)
		}
	}
	s := &treeSnapshot{fsys: fsys, names: map[string]bool{}}
	var dangling func(string)
	if skipDangling {
		dangling = func(name string) { s.dangling = append(s.dangling, name) }
	}
	for _, root := range roots {
		err := pack.WalkTree(fsys, root, dangling, func(name string, fi fs.FileInfo) error {
			if fi.Mode().IsRegular() {
				for _, e := range ex {
					if os.SameFile(fi, e) {
						s.skipped = append(s.skipped, name)
						return nil
					}
				}
				s.size += fi.Size()
			}
			s.names[name] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// notListed is the error for a name the snapshot does not hold.
func notListed(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Open opens a file or directory the snapshot lists.
func (s *treeSnapshot) Open(name string) (fs.File, error) {
	if !s.names[name] {
		return nil, notListed("open", name)
	}
	return s.fsys.Open(name)
}

// Stat describes a file or directory the snapshot lists.
func (s *treeSnapshot) Stat(name string) (fs.FileInfo, error) {
	if !s.names[name] {
		return nil, notListed("stat", name)
	}
	return fs.Stat(s.fsys, name)
}

// ReadDir lists the entries of the directory name that the snapshot lists.
func (s *treeSnapshot) ReadDir(name string) ([]fs.DirEntry, error) {
	if !s.names[name] {
		return nil, notListed("readdir", name)
	}
	entries, err := fs.ReadDir(s.fsys, name)
	kept := entries[:0]
	for _, e := range entries {
		if s.names[path.Join(name, e.Name())] {
			kept = append(kept, e)
		}
	}
	return kept, err
}

// noteSkipped tells, on standard error, which files of the tree the
// snapshot left out, saying they were not verb ("packed", "added"); after
// the command succeeded, so that an error stays the one line on stderr.
func (s *treeSnapshot) noteSkipped(e *env, verb string) {
	for _, name := range s.skipped {
		fmt.Fprintf(e.Stderr, "bpx %s: %s is the package itself: not %s\n", e.cmd.Name, termsafe.Message(name), verb)
	}
	for _, name := range s.dangling {
		target, _ := fs.ReadLink(s.fsys, name)
		fmt.Fprintf(e.Stderr, "bpx %s: skipped %s, a symbolic link to %s, which does not exist: not %s\n",
			e.cmd.Name, termsafe.Message(name), termsafe.Message(target), verb)
	}
}
