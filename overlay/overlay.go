package overlay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// Remover is implemented by a layer that removes names of the layers
// below it, such as a *pack.Package whose metadata lists them (see
// pack.RemovedKey). New calls Removed once.
type Remover interface {
	// Removed returns the names of files and directories that the layer
	// removes from the layers below it. Each must be a valid fs path
	// (fs.ValidPath) other than ".".
	Removed() ([]string, error)
}

// FS is a stack of layers seen as one fs.FS. It implements fs.ReadFileFS,
// fs.ReadDirFS, fs.StatFS and fs.SubFS, and is safe for concurrent use if
// its layers are.
type FS struct {
	layers []fs.FS
	all    []int // every layer, top first: the layers of "."

	// removed[dir][elem] is the highest layer that removes dir/elem; it
	// hides dir/elem in the layers below that one. Nil without removals.
	removed map[string]map[string]int

	// dirs caches, per directory name, the layers that hold it as a
	// directory and show it, top first. Only directories that exist are
	// kept, so its size is bounded by the layers' directories.
	dirs sync.Map // string -> []int

	// signers[i] are the keys that signed layer i (see Signed); nil
	// when no layer is signed.
	signers [][]sign.PublicKey
}

// New returns the stack of layers, lowest first: the base, then each mod.
// It calls Removed on the layers that implement Remover; a name that is
// not a valid fs path (or is ".") is an error matching bpx.ErrFormat that
// names the layer (by index) and the name. Removing a name that no layer
// below holds is not an error. Nothing else is read until the FS is used.
func New(layers ...fs.FS) (*FS, error) {
	if len(layers) == 0 {
		return nil, errors.New("overlay: no layers")
	}
	f := &FS{layers: slices.Clone(layers), all: make([]int, len(layers))}
	for i, l := range layers {
		f.all[len(layers)-1-i] = i
		if l == nil {
			return nil, fmt.Errorf("overlay: layer %d is nil", i)
		}
		if s, ok := l.(Signed); ok {
			if keys := s.Signers(); len(keys) > 0 {
				if f.signers == nil {
					f.signers = make([][]sign.PublicKey, len(layers))
				}
				f.signers[i] = keys
			}
		}
		r, ok := l.(Remover)
		if !ok {
			continue
		}
		names, err := r.Removed()
		if err != nil {
			return nil, fmt.Errorf("overlay: layer %d: removals: %w", i, err)
		}
		for _, name := range names {
			if name == "." || !fs.ValidPath(name) {
				return nil, fmt.Errorf("overlay: layer %d removes %q, not a valid fs path: %w", i, name, bpx.ErrFormat)
			}
			if i == 0 {
				continue // nothing below
			}
			if f.removed == nil {
				f.removed = map[string]map[string]int{}
			}
			dir, elem := split(name)
			m := f.removed[dir]
			if m == nil {
				m = map[string]int{}
				f.removed[dir] = m
			}
			m[elem] = max(m[elem], i)
		}
	}
	return f, nil
}

func split(name string) (dir, elem string) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ".", name
	}
	return name[:i], name[i+1:]
}

// cut returns the lowest layer in which dir/elem may show: the layers
// below the highest one that removes it are cut off.
func (f *FS) cut(dir, elem string) int {
	if f.removed == nil {
		return 0
	}
	return f.removed[dir][elem]
}

// parentLayers validates name and returns the layers in which its parent
// directory shows, and the lowest layer in which name may show.
// name must not be ".".
func (f *FS) parentLayers(op, name string) (layers []int, cut int, err error) {
	if !fs.ValidPath(name) {
		return nil, 0, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	dir, elem := split(name)
	layers, err = f.dirLayers(dir)
	if err != nil {
		return nil, 0, err
	}
	return layers, f.cut(dir, elem), nil
}

// dirLayers returns the layers in which the directory name shows, top
// first, or none if name is not a directory of the stack.
func (f *FS) dirLayers(name string) ([]int, error) {
	if name == "." {
		return f.all, nil
	}
	if v, ok := f.dirs.Load(name); ok {
		return v.([]int), nil
	}
	// Find the nearest known ancestor, then resolve downwards.
	layers, end := f.all, 0
	for i := strings.LastIndexByte(name, '/'); i > 0; i = strings.LastIndexByte(name[:i], '/') {
		if v, ok := f.dirs.Load(name[:i]); ok {
			layers, end = v.([]int), i+1
			break
		}
	}
	for {
		next := strings.IndexByte(name[end:], '/')
		if next < 0 {
			next = len(name)
		} else {
			next += end
		}
		dir := name[:next]
		var err error
		if layers, err = f.scanDir(dir, layers); err != nil || len(layers) == 0 {
			return nil, err
		}
		if v, loaded := f.dirs.LoadOrStore(strings.Clone(dir), layers); loaded {
			layers = v.([]int)
		}
		if next == len(name) {
			return layers, nil
		}
		end = next + 1
	}
}

// scanDir returns the layers among within (those of the parent, top
// first) in which name is a directory that shows: down to a layer that
// holds name as a file or below which name is removed.
func (f *FS) scanDir(name string, within []int) ([]int, error) {
	dir, elem := split(name)
	cut := f.cut(dir, elem)
	var out []int
	for _, k := range within {
		if k < cut {
			break
		}
		fi, err := fs.Stat(f.layers[k], name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		if !fi.IsDir() {
			break
		}
		out = append(out, k)
	}
	return out, nil
}

func notExist(op, name string) error {
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Stat returns the fs.FileInfo of name from the highest layer that shows
// it, implementing fs.StatFS.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if name == "." {
		return fs.Stat(f.layers[len(f.layers)-1], ".")
	}
	layers, cut, err := f.parentLayers("stat", name)
	if err != nil {
		return nil, err
	}
	for _, k := range layers {
		if k < cut {
			break
		}
		fi, err := fs.Stat(f.layers[k], name)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return fi, err
		}
	}
	return nil, notExist("stat", name)
}

// ReadFile returns the contents of the file name from the highest layer
// that shows it, implementing fs.ReadFileFS.
func (f *FS) ReadFile(name string) ([]byte, error) {
	if name == "." {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errIsDir}
	}
	layers, cut, err := f.parentLayers("readfile", name)
	if err != nil {
		return nil, err
	}
	for _, k := range layers {
		if k < cut {
			break
		}
		b, err := fs.ReadFile(f.layers[k], name)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return b, err
		}
	}
	return nil, notExist("readfile", name)
}

var (
	errIsDir  = errors.New("is a directory")
	errNotDir = errors.New("not a directory")
)

// Open opens name, implementing fs.FS. A file is the owning layer's file,
// unchanged, so that what it implements (io.Seeker, io.ReaderAt,
// io.WriterTo) stays available. A directory is an fs.ReadDirFile listing
// the merged entries, sorted by name; when a single layer shows the
// directory and nothing in it is removed, it is that layer's directory.
func (f *FS) Open(name string) (fs.File, error) {
	if name == "." {
		return f.openDir(name, f.all, nil)
	}
	layers, cut, err := f.parentLayers("open", name)
	if err != nil {
		return nil, err
	}
	for _, k := range layers {
		if k < cut {
			break
		}
		file, err := f.layers[k].Open(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		fi, err := file.Stat()
		if err != nil || !fi.IsDir() {
			if err != nil {
				file.Close()
				return nil, err
			}
			return file, nil
		}
		dl, err := f.dirLayers(name)
		if err != nil || len(dl) == 0 || dl[0] != k {
			file.Close()
			if err == nil {
				err = fmt.Errorf("overlay: layer %d changed while in use", k)
			}
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return f.openDir(name, dl, file)
	}
	return nil, notExist("open", name)
}

// openDir opens the directory name shown by layers; top is its file in
// the highest of them, or nil.
func (f *FS) openDir(name string, layers []int, top fs.File) (fs.File, error) {
	if len(layers) == 1 && f.removed[name] == nil {
		if top != nil {
			return top, nil
		}
		return f.layers[layers[0]].Open(name)
	}
	var fi fs.FileInfo
	var err error
	if top != nil {
		fi, err = top.Stat()
		top.Close()
	} else {
		fi, err = fs.Stat(f.layers[layers[0]], name)
	}
	if err != nil {
		return nil, err
	}
	return &dir{f: f, name: name, info: fi, layers: layers}, nil
}

// ReadDir returns the merged entries of directory name, sorted by name,
// implementing fs.ReadDirFS. Each entry is the highest layer's entry of
// that name.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	layers, err := f.dirLayers(name)
	if err != nil {
		return nil, err
	}
	if len(layers) == 0 {
		if _, err := f.Stat(name); err == nil {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
		}
		return nil, notExist("readdir", name)
	}
	return f.readDir(name, layers)
}

func (f *FS) readDir(name string, layers []int) ([]fs.DirEntry, error) {
	removed := f.removed[name]
	if len(layers) == 1 && removed == nil {
		return fs.ReadDir(f.layers[layers[0]], name)
	}
	var out []fs.DirEntry
	for _, k := range layers {
		ents, err := fs.ReadDir(f.layers[k], name)
		if err != nil {
			return nil, err
		}
		if removed != nil {
			ents = slices.DeleteFunc(ents, func(e fs.DirEntry) bool { return removed[e.Name()] > k })
		}
		if !slices.IsSortedFunc(ents, byName) {
			slices.SortFunc(ents, byName)
		}
		out = merge(out, ents)
	}
	return out, nil
}

func byName(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }

// merge merges the sorted entries of a layer below into the sorted
// entries above, which win for the same name.
func merge(above, below []fs.DirEntry) []fs.DirEntry {
	if len(above) == 0 {
		return below
	}
	out := make([]fs.DirEntry, 0, len(above)+len(below))
	i, j := 0, 0
	for i < len(above) && j < len(below) {
		switch c := strings.Compare(above[i].Name(), below[j].Name()); {
		case c < 0:
			out = append(out, above[i])
			i++
		case c > 0:
			out = append(out, below[j])
			j++
		default:
			out = append(out, above[i])
			i++
			j++
		}
	}
	out = append(out, above[i:]...)
	return append(out, below[j:]...)
}

// dir is an opened directory that several layers show, or that has
// removed entries.
type dir struct {
	f      *FS
	name   string
	info   fs.FileInfo
	layers []int
	ents   []fs.DirEntry
	read   bool
	off    int
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dir) Close() error               { return nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errIsDir}
}

// ReadDir returns the next count entries (all remaining ones if count <= 0).
func (d *dir) ReadDir(count int) ([]fs.DirEntry, error) {
	if !d.read {
		ents, err := d.f.readDir(d.name, d.layers)
		if err != nil {
			return nil, err
		}
		d.ents, d.read = ents, true
	}
	rest := d.ents[d.off:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(rest) {
		rest = rest[:count]
	}
	d.off += len(rest)
	return slices.Clone(rest), nil
}

// Compile-time interface checks.
var (
	_ fs.ReadFileFS  = (*FS)(nil)
	_ fs.ReadDirFS   = (*FS)(nil)
	_ fs.StatFS      = (*FS)(nil)
	_ fs.SubFS       = (*FS)(nil)
	_ fs.ReadDirFile = (*dir)(nil)
)
