// Package subfs gives the subtree of a file system that has every fast
// path (ReadFile, ReadDir, Stat, Sub) the same fast paths, which fs.Sub
// does not do for Stat. types/pack and overlay use it for their Sub.
package subfs

import (
	"io/fs"
	"path"
)

// Tree is a file system with every fast path.
type Tree interface {
	fs.ReadFileFS
	fs.ReadDirFS
	fs.StatFS
	fs.SubFS
}

// New returns the subtree of t rooted at dir. Like fs.Sub it does not
// check that dir exists. The result implements Tree, and its errors name
// paths relative to dir.
func New(t Tree, dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return t, nil
	}
	return &sub{t: t, dir: dir}, nil
}

// sub is a Tree seen from one of its directories.
type sub struct {
	t   Tree
	dir string
}

// full maps a name of the subtree to the tree's name for it.
func (s *sub) full(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return path.Join(s.dir, name), nil
}

// relative gives a *fs.PathError the name of the subtree.
func relative(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

func (s *sub) Open(name string) (fs.File, error) {
	full, err := s.full("open", name)
	if err != nil {
		return nil, err
	}
	f, err := s.t.Open(full)
	return f, relative(err, name)
}

func (s *sub) ReadFile(name string) ([]byte, error) {
	full, err := s.full("readfile", name)
	if err != nil {
		return nil, err
	}
	b, err := s.t.ReadFile(full)
	return b, relative(err, name)
}

func (s *sub) ReadDir(name string) ([]fs.DirEntry, error) {
	full, err := s.full("readdir", name)
	if err != nil {
		return nil, err
	}
	d, err := s.t.ReadDir(full)
	return d, relative(err, name)
}

func (s *sub) Stat(name string) (fs.FileInfo, error) {
	full, err := s.full("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.t.Stat(full)
	return fi, relative(err, name)
}

func (s *sub) Sub(dir string) (fs.FS, error) {
	full, err := s.full("sub", dir)
	if err != nil {
		return nil, err
	}
	return s.t.Sub(full)
}
