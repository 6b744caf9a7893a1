package overlay

import (
	"io/fs"
	"path"
)

// Sub returns the subtree of the stack rooted at dir, implementing
// fs.SubFS. Like fs.Sub it does not check that dir exists. The result
// implements fs.ReadFileFS, fs.ReadDirFS, fs.StatFS and fs.SubFS too, and
// its errors name paths relative to dir.
func (f *FS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return f, nil
	}
	return &subFS{f: f, dir: dir}, nil
}

// subFS is the stack seen from one of its directories.
type subFS struct {
	f   *FS
	dir string
}

// full maps a name of the subtree to the stack's name for it.
func (s *subFS) full(op, name string) (string, error) {
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

func (s *subFS) Open(name string) (fs.File, error) {
	full, err := s.full("open", name)
	if err != nil {
		return nil, err
	}
	f, err := s.f.Open(full)
	return f, relative(err, name)
}

func (s *subFS) ReadFile(name string) ([]byte, error) {
	full, err := s.full("readfile", name)
	if err != nil {
		return nil, err
	}
	b, err := s.f.ReadFile(full)
	return b, relative(err, name)
}

func (s *subFS) ReadDir(name string) ([]fs.DirEntry, error) {
	full, err := s.full("readdir", name)
	if err != nil {
		return nil, err
	}
	d, err := s.f.ReadDir(full)
	return d, relative(err, name)
}

func (s *subFS) Stat(name string) (fs.FileInfo, error) {
	full, err := s.full("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.f.Stat(full)
	return fi, relative(err, name)
}

func (s *subFS) Sub(dir string) (fs.FS, error) {
	full, err := s.full("sub", dir)
	if err != nil {
		return nil, err
	}
	return s.f.Sub(full)
}
