package pack

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// fsIndex is the file tree of the objects whose names are valid fs paths,
// sorted by (directory, base name) as in archive/zip, with the directories
// the names imply.
type fsIndex struct {
	entries []fsEntry
	bad     map[int]string // object index -> why it is not in the tree
}

type fsEntry struct {
	dir, elem string
	obj       int // object index, or -1 for a directory
}

func (e *fsEntry) name() string {
	if e.dir == "." {
		return e.elem
	}
	return e.dir + "/" + e.elem
}

func split(name string) (dir, elem string) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return ".", name
	}
	return name[:i], name[i+1:]
}

func cmpEntry(a, b fsEntry) int {
	if c := strings.Compare(a.dir, b.dir); c != 0 {
		return c
	}
	return strings.Compare(a.elem, b.elem)
}

// index builds the tree on first use.
func (p *Package) index() *fsIndex {
	p.idxOnce.Do(func() { p.idx = buildIndex(p.objects) })
	return p.idx
}

func buildIndex(objs []Object) *fsIndex {
	ix := &fsIndex{bad: map[int]string{}}
	dirs := map[string]bool{}
	ents := make([]fsEntry, 0, len(objs))
	for i := range objs {
		o := &objs[i]
		switch {
		case o.NameErr != nil:
			ix.bad[i] = "unreadable name: " + o.NameErr.Error()
			continue
		case o.Name == "" || o.Name == "." || !fs.ValidPath(o.Name):
			ix.bad[i] = "not a valid relative path (empty, absolute, \"..\", \".\" or a trailing slash)"
			continue
		}
		dir, elem := split(o.Name)
		ents = append(ents, fsEntry{dir, elem, i})
		for d := dir; d != "." && !dirs[d]; d, _ = split(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		dir, elem := split(d)
		ents = append(ents, fsEntry{dir, elem, -1})
	}
	slices.SortStableFunc(ents, cmpEntry)
	// Drop duplicate names and files that are also directories.
	out := ents[:0]
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && cmpEntry(ents[i], ents[j]) == 0 {
			j++
		}
		if j == i+1 {
			out = append(out, ents[i])
			i = j
			continue
		}
		isDir := false
		for _, e := range ents[i:j] {
			isDir = isDir || e.obj < 0
		}
		for _, e := range ents[i:j] {
			switch {
			case e.obj < 0:
			case isDir:
				ix.bad[e.obj] = "also a directory of other objects"
			default:
				ix.bad[e.obj] = "duplicate name"
			}
		}
		if isDir {
			out = append(out, fsEntry{ents[i].dir, ents[i].elem, -1})
		}
		i = j
	}
	ix.entries = slices.Clip(out)
	return ix
}

// lookup returns the entry of name ("." is the root, returned as a
// directory entry with an empty elem).
func (ix *fsIndex) lookup(name string) (fsEntry, bool) {
	if name == "." {
		return fsEntry{".", ".", -1}, true
	}
	dir, elem := split(name)
	i, ok := slices.BinarySearchFunc(ix.entries, fsEntry{dir: dir, elem: elem}, cmpEntry)
	if !ok {
		return fsEntry{}, false
	}
	return ix.entries[i], true
}

// children returns the entries of directory name.
func (ix *fsIndex) children(name string) []fsEntry {
	lo, _ := slices.BinarySearchFunc(ix.entries, fsEntry{dir: name}, cmpEntry)
	hi := lo
	for hi < len(ix.entries) && ix.entries[hi].dir == name {
		hi++
	}
	return ix.entries[lo:hi]
}

// InvalidPaths returns the objects that the fs.FS view leaves out and
// Unpack refuses, with the reason: names that are not valid relative fs
// paths, duplicates, and files that are also directories.
func (p *Package) InvalidPaths() map[int]string {
	ix := p.index()
	m := make(map[int]string, len(ix.bad))
	for k, v := range ix.bad {
		m[k] = v
	}
	return m
}

func (p *Package) lookup(op, name string) (fsEntry, error) {
	if !fs.ValidPath(name) {
		return fsEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	e, ok := p.index().lookup(name)
	if !ok {
		return fsEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, nil
}

// Open opens the object or synthesized directory name, implementing fs.FS.
// Files implement io.Seeker and io.ReaderAt, directories fs.ReadDirFile.
func (p *Package) Open(name string) (fs.File, error) {
	e, err := p.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if e.obj < 0 {
		return &dirFile{p: p, name: name, info: p.info(e)}, nil
	}
	r, err := p.OpenObject(e.obj)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{ObjectReader: r, info: p.info(e)}, nil
}

// Stat returns the fs.FileInfo of name without reading any object data,
// implementing fs.StatFS. Sys returns the object's *Object for files.
func (p *Package) Stat(name string) (fs.FileInfo, error) {
	e, err := p.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return p.info(e), nil
}

// ReadDir returns the entries of directory name sorted by name,
// implementing fs.ReadDirFS.
func (p *Package) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := p.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.obj >= 0 {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	kids := p.index().children(name)
	out := make([]fs.DirEntry, len(kids))
	for i, k := range kids {
		out[i] = fs.FileInfoToDirEntry(p.info(k))
	}
	return out, nil
}

var errNotDir = errors.New("not a directory")

// ReadFile returns the contents of the object name, implementing
// fs.ReadFileFS.
func (p *Package) ReadFile(name string) ([]byte, error) {
	e, err := p.lookup("readfile", name)
	if err != nil {
		return nil, err
	}
	if e.obj < 0 {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errIsDir}
	}
	b, err := p.readObject(e.obj)
	if err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	return b, nil
}

var errIsDir = errors.New("is a directory")

// ReadObject returns the contents of the object at index i of Objects.
func (p *Package) ReadObject(i int) ([]byte, error) { return p.readObject(i) }

// maxPrealloc bounds the buffer ReadFile allocates before the bytes arrive,
// so that a lying object size costs no more than the data really there.
const maxPrealloc = 64 << 20

func (p *Package) readObject(i int) ([]byte, error) {
	r, err := p.OpenObject(i)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	size := r.Size()
	if size > maxPrealloc {
		b, err := io.ReadAll(io.LimitReader(r, size))
		if err == nil && int64(len(b)) != size {
			err = io.ErrUnexpectedEOF
		}
		return b, err
	}
	b := make([]byte, size)
	if _, err := r.ReadAt(b, 0); err != nil && !(err == io.EOF && size == 0) {
		return nil, err
	}
	return b, nil
}

func (p *Package) info(e fsEntry) *fileInfo {
	fi := &fileInfo{name: e.elem}
	if e.obj < 0 {
		fi.mode = fs.ModeDir | 0o555
		return fi
	}
	fi.obj = &p.objects[e.obj]
	fi.mode = 0o444
	return fi
}

// fileInfo describes an object (0444) or a synthesized directory (0555),
// like embed's files: no modification time.
type fileInfo struct {
	name string
	mode fs.FileMode
	obj  *Object
}

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Size() int64 {
	if fi.obj == nil {
		return 0
	}
	return int64(fi.obj.Size)
}
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return time.Time{} }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any {
	if fi.obj == nil {
		return nil
	}
	return fi.obj
}
func (fi *fileInfo) String() string { return fs.FormatFileInfo(fi) }

// file is an opened object.
type file struct {
	*ObjectReader
	info *fileInfo
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }

// dirFile is an opened directory.
type dirFile struct {
	p      *Package
	name   string
	info   *fileInfo
	offset int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errIsDir}
}

// ReadDir returns the next count entries (all remaining ones if count <= 0).
func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	kids := d.p.index().children(d.name)[d.offset:]
	if count > 0 && len(kids) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(kids) {
		kids = kids[:count]
	}
	out := make([]fs.DirEntry, len(kids))
	for i, k := range kids {
		out[i] = fs.FileInfoToDirEntry(d.p.info(k))
	}
	d.offset += len(kids)
	return out, nil
}

// Compile-time interface checks.
var (
	_ fs.ReadFileFS  = (*Package)(nil)
	_ fs.ReadDirFS   = (*Package)(nil)
	_ fs.StatFS      = (*Package)(nil)
	_ fs.ReadDirFile = (*dirFile)(nil)
	_ io.ReadSeeker  = (*file)(nil)
	_ io.ReaderAt    = (*file)(nil)
)
