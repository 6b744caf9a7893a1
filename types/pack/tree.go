package pack

import (
	"io"
	"io/fs"
)

// treeFile is a regular file found by listTree.
type treeFile struct {
	name  string
	size  int64
	class objClass // classUnknown until classifyFiles
}

// listTree returns the regular files of the tree of fsys at root, in
// lexical order (fs.WalkDir). Directories are implied by the names; other
// file types, symbolic links among them, are an error (ErrNotRegular).
func listTree(fsys fs.FS, root string) ([]treeFile, error) {
	var files []treeFile
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if err := checkRegular("AddFS", name, d); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, treeFile{name: name, size: info.Size()})
		return nil
	})
	return files, err
}

// checkRegular returns an *fs.PathError wrapping ErrNotRegular for a tree
// entry d that is neither a regular file nor a directory, such as a
// symbolic link.
func checkRegular(op, name string, d fs.DirEntry) error {
	if d.IsDir() || d.Type().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: op, Path: name, Err: ErrNotRegular}
}

// copyFile copies the file f of fsys into the writer create returns for
// its name and size.
func copyFile(fsys fs.FS, f treeFile, create func(name string, size int64) (io.Writer, error)) error {
	r, err := fsys.Open(f.name)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := create(f.name, f.size)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

// addTree copies each regular file of the tree of fsys at root, in lexical
// order, into the writer create returns for its name and size, then calls
// done (if not nil).
func addTree(fsys fs.FS, root string, create func(name string, size int64) (io.Writer, error), done func() error) error {
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
