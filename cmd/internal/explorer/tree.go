package explorer

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/gobpx/bpx/overlay"
)

// tree is the tree of paths the page explores (see the package doc).
type tree struct {
	fs.FS
	// byLabel maps the top-level names to their files when files are
	// mounted by name; nil when one package or a stack is the tree.
	byLabel map[string]*input
	// err says why a stack could not be layered (its tree is then empty).
	err error
}

// newTree builds the tree of ins.
func newTree(ins []*input, layers bool) (*tree, error) {
	if layers {
		fss := make([]fs.FS, 0, len(ins))
		var errs []error
		for _, in := range ins {
			if in.pkg == nil {
				errs = append(errs, errorsNotPackage(in))
				continue
			}
			fss = append(fss, in.pkg)
		}
		if len(errs) > 0 {
			return &tree{FS: &mountFS{}, err: errors.Join(errs...)}, nil
		}
		ov, err := overlay.New(fss...)
		if err != nil {
			return &tree{FS: &mountFS{}, err: err}, nil
		}
		return &tree{FS: ov}, nil
	}
	if len(ins) == 1 && ins[0].pkg != nil {
		return &tree{FS: ins[0].pkg}, nil
	}
	m := &mountFS{byLabel: map[string]*input{}}
	for _, in := range ins {
		m.byLabel[in.label] = in
		m.labels = append(m.labels, in.label)
	}
	slices.Sort(m.labels)
	return &tree{FS: m, byLabel: m.byLabel}, nil
}

// errorsNotPackage says why in cannot be a layer.
func errorsNotPackage(in *input) error {
	if in.err != nil {
		return &layerError{in.name, in.err}
	}
	return &layerError{in.name, errors.New("not a package")}
}

// layerError is a file that cannot be a layer of the stack.
type layerError struct {
	name string
	err  error
}

func (e *layerError) Error() string { return e.name + ": " + e.err.Error() }
func (e *layerError) Unwrap() error { return e.err }

// mountFS is the tree of several files: one top-level entry per file, a
// package as the directory of its objects, any other file as a leaf.
type mountFS struct {
	byLabel map[string]*input
	labels  []string // sorted
}

// split returns the file that name lies in and the path inside it.
func (m *mountFS) split(op, name string) (*input, string, error) {
	if !fs.ValidPath(name) {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	label, rest, _ := strings.Cut(name, "/")
	in := m.byLabel[label]
	if in == nil {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if rest == "" {
		rest = "."
	}
	if in.pkg == nil && rest != "." {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return in, rest, nil
}

// Open opens name.
func (m *mountFS) Open(name string) (fs.File, error) {
	if name == "." {
		ents, _ := m.ReadDir(".")
		return &mountDir{ents: ents}, nil
	}
	in, rest, err := m.split("open", name)
	if err != nil {
		return nil, err
	}
	if in.pkg != nil {
		return in.pkg.Open(rest)
	}
	return &leafFile{SectionReader: io.NewSectionReader(in.r, 0, in.size), info: leafInfo{in}}, nil
}

// ReadDir lists the directory name, sorted by name.
func (m *mountFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "." {
		ents := make([]fs.DirEntry, len(m.labels))
		for i, l := range m.labels {
			ents[i] = fs.FileInfoToDirEntry(leafInfo{m.byLabel[l]})
		}
		return ents, nil
	}
	in, rest, err := m.split("readdir", name)
	if err != nil {
		return nil, err
	}
	if in.pkg == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return in.pkg.ReadDir(rest)
}

// Stat describes name.
func (m *mountFS) Stat(name string) (fs.FileInfo, error) {
	if name == "." {
		return rootInfo{}, nil
	}
	in, rest, err := m.split("stat", name)
	if err != nil {
		return nil, err
	}
	if in.pkg != nil && rest != "." {
		return in.pkg.Stat(rest)
	}
	return leafInfo{in}, nil
}

// leafInfo describes a file's top-level entry: a directory for a package,
// else a file of the file's size.
type leafInfo struct{ in *input }

func (i leafInfo) Name() string { return i.in.label }
func (i leafInfo) Size() int64 {
	if i.in.pkg != nil {
		return 0
	}
	return i.in.size
}
func (i leafInfo) Mode() fs.FileMode {
	if i.in.pkg != nil {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i leafInfo) ModTime() time.Time { return time.Time{} }
func (i leafInfo) IsDir() bool        { return i.in.pkg != nil }
func (i leafInfo) Sys() any           { return nil }

// rootInfo describes the root of a mountFS.
type rootInfo struct{}

func (rootInfo) Name() string       { return "." }
func (rootInfo) Size() int64        { return 0 }
func (rootInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (rootInfo) ModTime() time.Time { return time.Time{} }
func (rootInfo) IsDir() bool        { return true }
func (rootInfo) Sys() any           { return nil }

// leafFile is a whole file as a leaf of the tree; it implements io.ReaderAt
// and io.Seeker, as package objects do.
type leafFile struct {
	*io.SectionReader
	info leafInfo
}

func (f *leafFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *leafFile) Close() error               { return nil }

// mountDir is the opened root of a mountFS.
type mountDir struct {
	ents []fs.DirEntry
	off  int
}

func (d *mountDir) Stat() (fs.FileInfo, error) { return rootInfo{}, nil }
func (d *mountDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: errors.New("is a directory")}
}
func (d *mountDir) Close() error { return nil }

// ReadDir reads the next n entries (all when n <= 0).
func (d *mountDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}
