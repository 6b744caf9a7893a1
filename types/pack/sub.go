package pack

import (
	"errors"
	"io/fs"
	"path"
)

// Sub returns the subtree of the package rooted at dir, implementing
// fs.SubFS. Like fs.Sub it does not check that dir exists. The result keeps
// the package's fast paths: it implements fs.ReadFileFS, fs.ReadDirFS,
// fs.StatFS and fs.SubFS too, and its errors name paths relative to dir.
func (p *Package) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return p, nil
	}
	return &subFS{p: p, dir: dir}, nil
}

// subFS is a Package seen from one of its directories.
type subFS struct {
	p   *Package
	dir string
}

// full maps a name of the subtree to the package's name for it.
func (s *subFS) full(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return path.Join(s.dir, name), nil
}

// relative rewrites the path of a *fs.PathError to the subtree's name.
func relative(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = name
	}
	return err
}

func (s *subFS) Open(name string) (fs.File, error) {
	full, err := s.full("open", name)
	if err != nil {
		return nil, err
	}
	f, err := s.p.Open(full)
	return f, relative(err, name)
}

func (s *subFS) ReadFile(name string) ([]byte, error) {
	full, err := s.full("readfile", name)
	if err != nil {
		return nil, err
	}
	b, err := s.p.ReadFile(full)
	return b, relative(err, name)
}

func (s *subFS) ReadDir(name string) ([]fs.DirEntry, error) {
	full, err := s.full("readdir", name)
	if err != nil {
		return nil, err
	}
	d, err := s.p.ReadDir(full)
	return d, relative(err, name)
}

func (s *subFS) Stat(name string) (fs.FileInfo, error) {
	full, err := s.full("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.p.Stat(full)
	return fi, relative(err, name)
}

func (s *subFS) Sub(dir string) (fs.FS, error) {
	full, err := s.full("sub", dir)
	if err != nil {
		return nil, err
	}
	return s.p.Sub(full)
}
