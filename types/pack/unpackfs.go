package pack

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// UnpackFS writes the regular files of any fs.FS, such as a stack of
// layers from package overlay, into the directory dir, with the safety of
// Package.Unpack: names are resolved inside dir with os.Root, existing
// files are kept unless Overwrite is given (a symbolic link is never
// written through), and a file whose copy fails is removed. WithPaths and
// WithProgress apply as for Unpack; files are written one at a time, in
// walk order. A file that is neither regular nor a directory is an error.
//
// Before it creates anything, dir included, UnpackFS checks as
// CheckObjects does every selected file that is an object of a *Package,
// whether fsys is the package itself or shows its objects (a stack of
// layers from package overlay, Sub): a package cut short fails before dir
// is created. Only the object that fsys shows under each name is checked,
// so a damaged object that a higher layer shadows is not an error.
func UnpackFS(dir string, fsys fs.FS, opts ...UnpackOption) error {
	var o unpackConfig
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return err
		}
	}
	roots := o.Paths
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for _, r := range roots {
		if !fs.ValidPath(r) {
			return &fs.PathError{Op: "unpack", Path: r, Err: fs.ErrInvalid}
		}
		if _, err := fs.Stat(fsys, r); err != nil {
			return err
		}
	}
	if p, ok := fsys.(*Package); ok {
		if err := p.CheckObjects(o.Paths...); err != nil {
			return err
		}
	} else if err := checkShown(fsys, roots); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, r := range roots {
		// The parents of a selected path, then the path's tree.
		if d := path.Dir(r); d != "." {
			var made string
			for _, elem := range strings.Split(d, "/") {
				made = path.Join(made, elem)
				if err := mkdirIn(root, made); err != nil {
					return err
				}
			}
		}
		err := fs.WalkDir(fsys, r, func(name string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir():
				if name == "." {
					return nil
				}
				return mkdirIn(root, name)
			case !d.Type().IsRegular():
				return &fs.PathError{Op: "unpack", Path: name, Err: errors.New("not a regular file")}
			}
			n, err := unpackFile(root, fsys, name, o.Overwrite)
			if err == nil && o.Progress != nil {
				o.Progress(name, n)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkShown checks, as CheckObjects does, the package object behind each
// regular file under roots in fsys: the one that fs.Stat, and so Open,
// resolves the name to. Files that are not package objects are skipped.
func checkShown(fsys fs.FS, roots []string) error {
	used := map[*Package][]bool{}
	for _, r := range roots {
		err := fs.WalkDir(fsys, r, func(name string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			fi, err := fs.Stat(fsys, name)
			if err != nil {
				return err
			}
			pf, ok := fi.(*fileInfo)
			if !ok || pf.p == nil {
				return nil
			}
			u := used[pf.p]
			if u == nil {
				u = make([]bool, len(pf.p.Reader.Sections))
				used[pf.p] = u
			}
			return pf.p.checkObject(pf.obj, u)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdirIn makes the directory name under root, or accepts an existing
// one; an existing symbolic link or file there is refused, so nothing is
// written through a link (os.Root would follow one that stays inside).
func mkdirIn(root *os.Root, name string) error {
	err := root.Mkdir(name, 0o755)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := root.Lstat(name); lerr == nil && fi.IsDir() {
			return nil
		}
		err = errors.New("exists and is not a directory (a symbolic link is never followed)")
	}
	return &fs.PathError{Op: "unpack", Path: name, Err: err}
}

// unpackFile copies the file name of fsys to the same name under root.
func unpackFile(root *os.Root, fsys fs.FS, name string, overwrite bool) (n int64, err error) {
	src, err := fsys.Open(name)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
			return 0, &fs.PathError{Op: "unpack", Path: name, Err: errors.New("refusing to replace a symbolic link or non-regular file")}
		}
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := root.OpenFile(name, flag, 0o644)
	if err != nil {
		return 0, &fs.PathError{Op: "unpack", Path: name, Err: err}
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			root.Remove(name)
		} else if fi, serr := src.Stat(); serr == nil && !fi.ModTime().IsZero() {
			// The file's time, as Unpack sets it (see SectionModTimes).
			root.Chtimes(name, fi.ModTime(), fi.ModTime())
		}
	}()
	// WriteTo where the source has it: *os.File's ReadFrom would allocate
	// a buffer the size of every file.
	if wt, ok := src.(io.WriterTo); ok {
		n, err = wt.WriteTo(f)
	} else {
		n, err = io.Copy(f, src)
	}
	if err != nil {
		return n, &fs.PathError{Op: "unpack", Path: name, Err: err}
	}
	return n, nil
}
