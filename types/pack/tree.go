package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"time"
)

// treeFile is a regular file found by listTree.
type treeFile struct {
	name  string
	size  int64
	mod   time.Time // its modification time (see SectionModTimes)
	class objClass  // classUnknown until classifyFiles
}

// maxLinkDepth bounds the directories reached through symbolic links
// that WalkTree enters one inside another, for file systems whose
// FileInfos os.SameFile cannot compare (Linux allows 40 links in a path).
const maxLinkDepth = 40

// WalkTree walks the tree of fsys at root as AddFS, Editor.AddFS, Diff and
// WritePatch read a directory: in lexical order, as fs.WalkDir does,
// calling fn for root, each directory and each regular file below it with
// its name and FileInfo. Symbolic links to files and directories are
// followed (where fsys follows them, as os.DirFS does): a link is walked
// as what it leads to, under its own name.
//
// A link that leads to a directory that holds it fails with an
// *fs.PathError naming it and matching ErrLinkLoop; one that leads to
// nothing, with one matching ErrDanglingLink and saying where it leads,
// unless dangling is not nil: dangling is then called with its name and
// the link is skipped. Any other entry (a named pipe, a device, a socket)
// fails with ErrNotRegular. An error fn returns stops the walk and is
// returned.
func WalkTree(fsys fs.FS, root string, dangling func(name string), fn func(name string, info fs.FileInfo) error) error {
	info, err := fs.Stat(fsys, root)
	if err != nil {
		return err
	}
	t := &treeWalk{fsys: fsys, dangling: dangling, fn: fn}
	if !info.IsDir() {
		return t.file(root, info)
	}
	return t.dir(root, info, 0)
}

// treeWalk is one WalkTree.
type treeWalk struct {
	fsys      fs.FS
	dangling  func(name string)
	fn        func(name string, info fs.FileInfo) error
	ancestors []fs.FileInfo // the directories being walked, root first
}

func (t *treeWalk) file(name string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return &fs.PathError{Op: "walk", Path: name, Err: ErrNotRegular}
	}
	return t.fn(name, info)
}

// dir walks the directory name, reached through links levels deep.
func (t *treeWalk) dir(name string, info fs.FileInfo, links int) error {
	if err := t.fn(name, info); err != nil {
		return err
	}
	ents, err := fs.ReadDir(t.fsys, name)
	if err != nil {
		return err
	}
	t.ancestors = append(t.ancestors, info)
	defer func() { t.ancestors = t.ancestors[:len(t.ancestors)-1] }()
	for _, d := range ents {
		p := path.Join(name, d.Name())
		switch {
		case d.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if err := t.dir(p, info, links); err != nil {
				return err
			}
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if err := t.fn(p, info); err != nil {
				return err
			}
		case d.Type()&fs.ModeSymlink != 0:
			if err := t.link(p, links); err != nil {
				return err
			}
		default:
			return &fs.PathError{Op: "walk", Path: p, Err: ErrNotRegular}
		}
	}
	return nil
}

// link walks the symbolic link name as what it leads to.
func (t *treeWalk) link(name string, links int) error {
	info, err := fs.Stat(t.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		if t.dangling != nil {
			t.dangling(name)
			return nil
		}
		target, _ := fs.ReadLink(t.fsys, name)
		return &fs.PathError{Op: "walk", Path: name, Err: fmt.Errorf("%w (to %q, which does not exist)", ErrDanglingLink, target)}
	}
	if err != nil {
		return err // a loop of links says so: "too many levels of symbolic links"
	}
	if !info.IsDir() {
		return t.file(name, info)
	}
	for _, a := range t.ancestors {
		if os.SameFile(a, info) {
			return &fs.PathError{Op: "walk", Path: name, Err: ErrLinkLoop}
		}
	}
	if links >= maxLinkDepth {
		return &fs.PathError{Op: "walk", Path: name, Err: fmt.Errorf("%w (%d directories reached through links, one inside another)", ErrLinkLoop, links)}
	}
	return t.dir(name, info, links+1)
}

// listTree returns the regular files of the tree of fsys at root, as
// WalkTree finds them (dangling links are errors).
func listTree(fsys fs.FS, root string) ([]treeFile, error) {
	var files []treeFile
	err := WalkTree(fsys, root, nil, func(name string, info fs.FileInfo) error {
		if !info.IsDir() {
			files = append(files, treeFile{name: name, size: info.Size(), mod: info.ModTime()})
		}
		return nil
	})
	return files, err
}

// copyFile copies the file f of fsys into the writer create returns for
// its name and size.
func copyFile(fsys fs.FS, f treeFile, create func(f treeFile) (io.Writer, error)) error {
	r, err := fsys.Open(f.name)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := create(f)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

// addTree copies each regular file of the tree of fsys at root, in lexical
// order, into the writer create returns for it, then calls done (if not
// nil).
func addTree(fsys fs.FS, root string, create func(f treeFile) (io.Writer, error), done func() error) error {
	files, err := listTree(fsys, root)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := copyFile(fsys, f, create); err != nil {
			return err
		}
		if done != nil {
			if err := done(); err != nil {
				return err
			}
		}
	}
	return nil
}
