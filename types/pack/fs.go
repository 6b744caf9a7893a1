package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/gobpx/bpx"
)

// InvalidPaths returns the objects that the fs.FS view leaves out and
// Unpack refuses, with the reason: names that are not valid relative fs
// paths, duplicates, files that are also directories, and names longer
// than WithMaxPathLength.
//
// Packages written in path order (as Writer.AddFS writes them) are checked
// in one pass without building the directory tree, which keeps "bpx ls"
// fast.
func (p *Package) InvalidPaths() map[int]string {
	if p.isClean() {
		return map[int]string{}
	}
	ix := p.index()
	m := make(map[int]string, len(ix.bad))
	for k, v := range ix.bad {
		m[k] = v
	}
	return m
}

func (p *Package) lookup(op, name string) (fsEntry, error) {
	if !validPath(name) {
		return fsEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if ix := p.pidx.Load(); ix != nil {
		e, err := p.lookupIndexed(ix, name)
		switch {
		case err == nil:
			return e, nil
		case !errors.Is(err, errPathIndex):
			return fsEntry{}, &fs.PathError{Op: op, Path: name, Err: err}
		}
		p.dropIndex()
	}
	if err := p.load(); err != nil {
		return fsEntry{}, &fs.PathError{Op: op, Path: name, Err: err}
	}
	if e, ok := p.lookupClean(name); ok {
		return e, nil
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
	r, err := p.openEntry(e)
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
	if ix := p.pidx.Load(); ix != nil {
		out, err := p.readDirIndexed(ix, name, "", 0)
		switch {
		case err == nil:
			return out, nil
		case !errors.Is(err, errPathIndex):
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
		}
		p.dropIndex()
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
	r, err := p.openEntry(e)
	var b []byte
	if err == nil {
		b, err = readAll(r)
	}
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
	return readAll(r)
}

// openEntry opens the file e.
func (p *Package) openEntry(e fsEntry) (*ObjectReader, error) {
	if e.ix != nil {
		return p.openIndexed(e.ix)
	}
	return p.OpenObject(e.obj)
}

// readAll reads the whole object of r and closes r.
func readAll(r *ObjectReader) ([]byte, error) {
	defer r.Close()
	size := r.Size()
	if size > int64(int(^uint(0)>>1)) { // 32-bit platforms: above 2 GiB - 1
		return nil, fmt.Errorf("pack: object %d: %d bytes do not fit in memory on this platform (use OpenObject): %w", r.obj.Index, size, bpx.ErrTooLarge)
	}
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
	if e.ix != nil {
		fi.obj = &e.ix.obj
	} else {
		fi.obj = &p.objects[e.obj]
	}
	fi.p = p
	fi.mode = 0o444
	return fi
}

// fileInfo describes an object (0444), with its time in SectionModTimes,
// or a synthesized directory (0555), without one.
type fileInfo struct {
	name string
	mode fs.FileMode
	obj  *Object
	p    *Package // the package of obj, for UnpackFS's check
}

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Size() int64 {
	if fi.obj == nil {
		return 0
	}
	return int64(fi.obj.Size)
}
func (fi *fileInfo) Mode() fs.FileMode { return fi.mode }
func (fi *fileInfo) ModTime() time.Time {
	if fi.obj == nil || fi.p == nil {
		return time.Time{}
	}
	return fi.p.modTime(fi.obj.Index)
}
func (fi *fileInfo) IsDir() bool { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any {
	if fi.obj == nil {
		return nil
	}
	return fi.obj
}
func (fi *fileInfo) String() string { return fs.FormatFileInfo(fi) }

// file is an opened object. Its read errors (but io.EOF) are
// *fs.PathErrors naming it, as an *os.File's are: a loader that reads
// hundreds of files learns which one is damaged.
type file struct {
	*ObjectReader
	info *fileInfo
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *file) Read(b []byte) (int, error) {
	n, err := f.ObjectReader.Read(b)
	return n, f.named(err)
}

func (f *file) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.ObjectReader.ReadAt(b, off)
	return n, f.named(err)
}

// WriteTo names the errors of reading, not those of w.
func (f *file) WriteTo(w io.Writer) (int64, error) {
	ew := &errWriter{w: w}
	n, err := f.ObjectReader.WriteTo(ew)
	if err != nil && err == ew.err {
		return n, err
	}
	return n, f.named(err)
}

// named returns err as an *fs.PathError naming the file, but io.EOF and
// nil, and errors that name it already.
func (f *file) named(err error) error {
	var pe *fs.PathError
	var oe *ObjectError
	if err == nil || err == io.EOF || errors.As(err, &pe) || errors.As(err, &oe) {
		return err
	}
	return &fs.PathError{Op: "read", Path: f.obj.Name, Err: err}
}

// errWriter remembers the error of its writer.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// dirFile is an opened directory.
type dirFile struct {
	p      *Package
	name   string
	info   *fileInfo
	offset int    // entries returned
	last   string // the name of the last one
	tables bool   // listed through the tables (the path index is not used)
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errIsDir}
}

// ReadDir returns the next count entries (all remaining ones if count <= 0).
func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	if ix := d.p.pidx.Load(); ix != nil && !d.tables {
		out, err := d.p.readDirIndexed(ix, d.name, d.last, count)
		switch {
		case err == nil:
			if count > 0 && len(out) == 0 {
				return nil, io.EOF
			}
			d.offset += len(out)
			if len(out) > 0 {
				d.last = out[len(out)-1].Name()
			}
			return out, nil
		case !errors.Is(err, errPathIndex):
			return nil, &fs.PathError{Op: "readdir", Path: d.name, Err: err}
		}
		d.p.dropIndex()
	}
	d.tables = true
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
