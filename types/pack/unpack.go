package pack

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// UnpackOption configures Package.Unpack, in the idiom of Option: a value
// outside an option's range makes Unpack fail before it writes anything.
type UnpackOption func(*unpackConfig) error

// unpackConfig is what UnpackOptions set; the zero value is the
// default.
type unpackConfig struct {
	Overwrite   bool
	SkipInvalid bool
	Concurrency int // 0: 2 x GOMAXPROCS
	Progress    func(name string, size int64)
	Paths       []string
}

// Overwrite makes Unpack replace existing files; without it an existing
// file is an error, unless it is what an unpack cut off leaves (a regular
// file holding the object's first bytes, or all of them), which is
// completed: running an interrupted unpack again finishes it. A symbolic
// link is never written through.
func Overwrite() UnpackOption {
	return func(c *unpackConfig) error { c.Overwrite = true; return nil }
}

// SkipInvalid makes Unpack extract the valid objects and skip those whose
// names InvalidPaths lists; without it Unpack refuses the whole package
// before writing anything.
func SkipInvalid() UnpackOption {
	return func(c *unpackConfig) error { c.SkipInvalid = true; return nil }
}

// WithUnpackConcurrency sets how many objects are written at the same time
// (default 2 x GOMAXPROCS: creating files blocks, and a second worker per
// core decompresses meanwhile); n must be at least 1. Objects of one
// section are written by one worker, in order, so each section is
// decompressed once.
func WithUnpackConcurrency(n int) UnpackOption {
	return func(c *unpackConfig) error {
		if n < 1 {
			return fmt.Errorf("pack: WithUnpackConcurrency(%d): fewer than 1 worker", n)
		}
		c.Concurrency = n
		return nil
	}
}

// WithProgress makes Unpack call f after each object with its name and
// size. f may be called from several goroutines, but never concurrently.
func WithProgress(f func(name string, size int64)) UnpackOption {
	return func(c *unpackConfig) error { c.Progress = f; return nil }
}

// WithPaths selects what Unpack extracts: the objects named by one of the
// paths, and everything inside a directory it names (all objects without
// this option). A path that selects nothing is an error matching
// fs.ErrNotExist, and objects outside the selection are neither written
// nor checked.
func WithPaths(paths ...string) UnpackOption {
	return func(c *unpackConfig) error { c.Paths = append(c.Paths, paths...); return nil }
}

// selects reports whether the object or directory name is selected by
// paths (all when paths is empty).
func selects(paths []string, name string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if name == p || p == "." || strings.HasPrefix(name, p+"/") || strings.HasPrefix(p, name+"/") {
			return true
		}
	}
	return false
}

// checkSelection verifies that every path of paths names an object or a
// directory of the tree.
func checkSelection(ix *fsIndex, paths []string) error {
	for _, p := range paths {
		if !fs.ValidPath(p) {
			return &fs.PathError{Op: "unpack", Path: p, Err: fs.ErrInvalid}
		}
		found := p == "."
		for i := range ix.entries {
			if n := ix.entries[i].name(); n == p || strings.HasPrefix(n, p+"/") {
				found = true
				break
			}
		}
		if !found {
			return &fs.PathError{Op: "unpack", Path: p, Err: fs.ErrNotExist}
		}
	}
	return nil
}

// Unpack writes every object into the directory dir, creating it and the
// objects' parent directories. Names are resolved inside dir with os.Root:
// a name or an existing symbolic link that would lead outside dir is
// refused. Each file is written completely or removed: an object whose data
// is damaged or cut short is an error, never a silently truncated file.
//
// Before it creates anything, dir included, Unpack checks what it can
// without decompressing: the names (see SkipInvalid), the selection (see
// WithPaths), and, as CheckObjects does, that the data of every selected
// object lies in data sections that the file holds whole. So a package cut
// short or with a damaged object table fails with an error matching
// bpx.ErrFormat and leaves nothing behind. Damage found only by
// decompressing (a bad checksum, corrupt compressed data) fails once
// writing has begun: the file being written is removed, the files and
// directories already made are kept.
func (p *Package) Unpack(dir string, opts ...UnpackOption) error {
	var o unpackConfig
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return err
		}
	}
	if err := p.load(); err != nil {
		return err
	}
	ix := p.index()
	if err := checkSelection(ix, o.Paths); err != nil {
		return err
	}
	if len(ix.bad) > 0 && !o.SkipInvalid && len(o.Paths) == 0 {
		first := -1
		for i := range ix.bad {
			if first < 0 || i < first {
				first = i
			}
		}
		ob := &p.objects[first]
		return &ObjectError{Index: first, Name: ob.Name, Err: ErrInsecurePath,
			What: fmt.Sprintf("refusing to unpack: %s (%d such objects)", ix.bad[first], len(ix.bad))}
	}
	var files []int
	for _, e := range ix.entries {
		if e.obj >= 0 && selects(o.Paths, e.name()) {
			files = append(files, e.obj)
		}
	}
	// Where each file's data is, checked before anything is created but
	// not kept: the workers locate each object again, one at a time, so
	// memory stays bounded by the largest object's segments.
	used := make([]bool, len(p.Reader.Sections))
	for _, i := range files {
		if err := p.checkObject(&p.objects[i], used); err != nil {
			return err
		}
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()

	// Files in data order, grouped by first section.
	slices.SortFunc(files, func(a, b int) int {
		oa, ob := &p.objects[a], &p.objects[b]
		if oa.pos != ob.pos {
			return oa.pos - ob.pos
		}
		return cmp.Compare(oa.Offset, ob.Offset) // not a difference: int is 32 bits on some platforms
	})
	var groups [][]int
	for i := 0; i < len(files); {
		j := i + 1
		for j < len(files) && p.objects[files[j]].pos == p.objects[files[i]].pos {
			j++
		}
		groups = append(groups, files[i:j])
		i = j
	}
	// Directories first, in sorted order, so parents precede children:
	// each is made inside its (cached, open) parent.
	mk := &dirCache{root: root}
	for _, e := range ix.entries {
		if e.obj < 0 && selects(o.Paths, e.name()) {
			if err := mk.mkdir(e.dir, e.elem); err != nil {
				mk.close()
				return &fs.PathError{Op: "unpack", Path: e.name(), Err: err}
			}
		}
	}
	mk.close()

	workers := o.Concurrency
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	work := make(chan []int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		stop     = make(chan struct{})
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			close(stop)
		}
		mu.Unlock()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs := &dirCache{root: root}
			defer dirs.close()
			for g := range work {
				for _, i := range g {
					if err := p.unpackOne(dirs, i, o.Overwrite); err != nil {
						fail(err)
						break
					}
					if o.Progress != nil {
						mu.Lock()
						o.Progress(p.objects[i].Name, int64(p.objects[i].Size))
						mu.Unlock()
					}
				}
			}
		}()
	}
feed:
	for _, g := range groups {
		select {
		case work <- g:
		case <-stop:
			break feed
		}
	}
	close(work)
	wg.Wait()
	return firstErr
}

// unpackReadAhead lets Unpack's readers read ahead; BenchmarkUnpack
// compares.
var unpackReadAhead = false

// dirCacheSize is how many directories a worker keeps open. Objects come in
// data order, which walks a tree depth first: a small cache of recent
// directories keeps the parent open while a subdirectory is written, so
// returning to it costs nothing.
const dirCacheSize = 16

// dirCache keeps recently used directories open as os.Roots, most recent
// first, so that creating a file resolves no path component and opening a
// new directory resolves only the components below its closest open
// ancestor.
type dirCache struct {
	root *os.Root
	ents []*dirEntry
}

// dirEntry is one open directory of a dirCache.
type dirEntry struct {
	name string   // slash-separated, relative to the cache's root; "." for it
	root *os.Root // the directory; the cache's root itself for "."
	sys  sysDir   // platform state for create
}

func (d *dirCache) open(dir string) (*dirEntry, error) {
	for i, e := range d.ents {
		if e.name == dir {
			copy(d.ents[1:i+1], d.ents[:i])
			d.ents[0] = e
			return e, nil
		}
	}
	e := &dirEntry{name: dir, root: d.root}
	if dir != "." {
		base, rel := d.root, dir
		for _, a := range d.ents { // the closest open ancestor
			if a.name != "." && strings.HasPrefix(dir, a.name+"/") && len(a.name) > len(dir)-len(rel) {
				base, rel = a.root, dir[len(a.name)+1:]
			}
		}
		sub, err := base.OpenRoot(rel)
		if err != nil {
			return nil, err
		}
		e.root = sub
	}
	d.ents = append(d.ents, nil)
	copy(d.ents[1:], d.ents)
	d.ents[0] = e
	if len(d.ents) > dirCacheSize {
		d.closeEntry(d.ents[len(d.ents)-1])
		d.ents = d.ents[:len(d.ents)-1]
	}
	return e, nil
}

// mkdir makes directory elem in dir, which must exist. An existing
// directory is fine; anything else already there (a file, a symbolic link)
// is an error.
func (d *dirCache) mkdir(dir, elem string) error {
	parent, err := d.open(dir)
	if err != nil {
		return err
	}
	err = parent.root.Mkdir(elem, 0o755)
	if errors.Is(err, fs.ErrExist) {
		if fi, lerr := parent.root.Lstat(elem); lerr == nil && fi.IsDir() {
			return nil
		}
	}
	return err
}

func (d *dirCache) closeEntry(e *dirEntry) {
	e.sys.close()
	if e.root != d.root {
		e.root.Close()
	}
}

func (d *dirCache) close() {
	for _, e := range d.ents {
		d.closeEntry(e)
	}
	d.ents = nil
}

// resumeFile completes the existing file base of root if it is what an
// unpack of object i that was cut off leaves: a regular file (never a
// link) holding the object's first bytes, or all of them. It reports
// whether it did (the file is then the object's bytes); false means the
// file is something else, which an unpack without Overwrite refuses. It
// reads the file's bytes and as many of the object's to compare them.
func (p *Package) resumeFile(root *os.Root, base string, i int) (bool, error) {
	o := &p.objects[i]
	at, err := root.Lstat(base)
	if err != nil || !at.Mode().IsRegular() || uint64(at.Size()) > o.Size {
		return false, nil
	}
	f, err := root.OpenFile(base, os.O_RDWR, 0)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	// OpenFile follows a link: the file opened must be the one Lstat saw
	// (a link put at the name in between would be written through).
	fi, err := f.Stat()
	if err != nil || !os.SameFile(at, fi) || uint64(fi.Size()) > o.Size {
		return false, nil
	}
	r, err := p.OpenObject(i)
	if err != nil {
		return false, err
	}
	defer r.Close()
	have, want := make([]byte, 64<<10), make([]byte, 64<<10)
	for off := int64(0); off < fi.Size(); {
		n := int(min(int64(len(have)), fi.Size()-off))
		if _, err := io.ReadFull(f, have[:n]); err != nil {
			return false, nil
		}
		if _, err := io.ReadFull(r, want[:n]); err != nil {
			return false, fmt.Errorf("pack: unpacking %q: %w", o.Name, p.blame(err))
		}
		if !bytes.Equal(have[:n], want[:n]) {
			return false, nil
		}
		off += int64(n)
	}
	// The rest of the object, after what the file holds.
	if _, err := r.WriteTo(f); err != nil {
		return false, fmt.Errorf("pack: unpacking %q: %w", o.Name, p.blame(err))
	}
	return true, f.Close()
}

// CheckObjects checks, without reading any section, that the data of every
// object named by one of paths (every object in a directory it names; all
// objects when paths is empty) lies in the package's data sections, and
// that the file holds those sections' stored bytes whole: what Unpack
// checks before it creates anything. A path that selects nothing is not an
// error here. The first object found wrong gives an *ObjectError matching
// ErrObjectRange and bpx.ErrFormat.
func (p *Package) CheckObjects(paths ...string) error {
	if err := p.load(); err != nil {
		return err
	}
	used := make([]bool, len(p.Reader.Sections))
	for _, e := range p.index().entries {
		if e.obj >= 0 && selects(paths, e.name()) {
			if err := p.checkObject(&p.objects[e.obj], used); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkObject checks that the file holds whole every section that o's data
// lies in; used marks the sections already checked. It keeps none of the
// segments it walks.
func (p *Package) checkObject(o *Object, used []bool) error {
	size := uint64(p.Reader.Size())
	return p.walkSegments(o, func(sg segment) error {
		if used[sg.sec] {
			return nil
		}
		s := p.Reader.Sections[sg.sec]
		if end := s.Pointer + uint64(s.StoredSize()); s.Pointer > size || end > size {
			return p.objectError(o, fmt.Sprintf("its data is in section %d, stored at [%d, %d), beyond the end of the %d-byte file (cut short?)",
				sg.sec, s.Pointer, end, size), ErrObjectRange)
		}
		used[sg.sec] = true
		return nil
	})
}

// unpackOne writes object i to its name under dirs.root.
func (p *Package) unpackOne(dirs *dirCache, i int, overwrite bool) (err error) {
	o := &p.objects[i]
	dir, base := split(o.Name)
	ent, err := dirs.open(dir)
	if err != nil {
		return err
	}
	root := ent.root
	r, err := p.OpenObject(i)
	if err != nil {
		return err
	}
	defer r.Close()
	// The workers already decode sections side by side, a whole group
	// each: read-ahead would only add a goroutine competing with them.
	r.noAhead = !unpackReadAhead
	// Each worker takes a group of objects that fill whole sections:
	// decoding them whole at once costs the least.
	r.whole = true
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		if fi, err := root.Lstat(base); err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular() {
				return &fs.PathError{Op: "unpack", Path: o.Name, Err: errors.New("refusing to replace a symbolic link or non-regular file")}
			}
		}
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := ent.create(base, flag)
	if errors.Is(err, fs.ErrExist) && !overwrite {
		// An unpack cut off before (killed, or failed on another file)
		// left this file whole or begun: completed, not refused, so that
		// running the unpack again finishes it. Anything else stays.
		if done, rerr := p.resumeFile(root, base, i); rerr != nil || done {
			return rerr
		}
	}
	if err != nil {
		return &fs.PathError{Op: "unpack", Path: o.Name, Err: err}
	}
	defer func() {
		// The packed file's time (see SectionModTimes), as tar and
		// unzip restore it; a file whose time cannot be set stays as
		// written. Through the open file where the system allows it,
		// else by name once it is closed.
		mt, timed := time.Time{}, false
		if err == nil {
			mt = p.modTime(i)
			timed = mt.IsZero() || setTimeOpen(f, mt)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			root.Remove(base)
		} else if !timed {
			root.Chtimes(base, mt, mt)
		}
	}()
	// WriteTo, not io.Copy: *os.File's ReadFrom would allocate a buffer the
	// size of every file.
	n, err := r.WriteTo(f)
	if err != nil {
		return fmt.Errorf("pack: unpacking %q: %w", o.Name, p.blame(err))
	}
	if uint64(n) != o.Size {
		return fmt.Errorf("pack: unpacking %q: wrote %d of %d bytes: %w", o.Name, n, o.Size, io.ErrUnexpectedEOF)
	}
	return nil
}
