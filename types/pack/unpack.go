package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// UnpackOptions control Package.Unpack. The zero value is ready to use.
type UnpackOptions struct {
	// Overwrite replaces existing files; without it an existing file is an
	// error. A symbolic link is never written through.
	Overwrite bool
	// SkipInvalid extracts the valid objects and skips those whose names
	// InvalidPaths lists; without it Unpack refuses the whole package
	// before writing anything.
	SkipInvalid bool
	// Concurrency is the number of objects written at the same time
	// (default GOMAXPROCS). Objects of one section are written by one
	// worker, in order, so each section is decompressed once.
	Concurrency int
	// Progress, if set, is called after each object with its size.
	// It may be called from several goroutines, but never concurrently.
	Progress func(name string, size int64)
	// Paths, if not empty, selects what to extract: the objects named by
	// one of the paths, and everything inside a directory it names. A
	// path that selects nothing is an error matching fs.ErrNotExist, and
	// objects outside the selection are neither written nor checked.
	Paths []string
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
func (p *Package) Unpack(dir string, opts *UnpackOptions) error {
	var o UnpackOptions
	if opts != nil {
		o = *opts
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()

	// Files in data order, grouped by first section.
	var files []int
	for _, e := range ix.entries {
		if e.obj >= 0 && selects(o.Paths, e.name()) {
			files = append(files, e.obj)
		}
	}
	slices.SortFunc(files, func(a, b int) int {
		oa, ob := &p.objects[a], &p.objects[b]
		if oa.pos != ob.pos {
			return oa.pos - ob.pos
		}
		return int(oa.Offset) - int(ob.Offset)
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
	// Directories first, in sorted order, so parents precede children.
	for _, e := range ix.entries {
		if e.obj < 0 && selects(o.Paths, e.name()) {
			if err := root.MkdirAll(e.name(), 0o755); err != nil {
				return err
			}
		}
	}

	workers := o.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
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
			dirs := &dirCache{root: root, buf: make([]byte, 128<<10)}
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

// dirCache keeps the directory of the previous file open as an os.Root, so
// that creating the next file in it resolves one path component, not all.
type dirCache struct {
	root *os.Root
	name string
	sub  *os.Root
	buf  []byte
	sys  sysDir // platform state for create
}

func (d *dirCache) open(dir string) (*os.Root, error) {
	if dir == "." {
		return d.root, nil
	}
	if d.sub != nil && d.name == dir {
		return d.sub, nil
	}
	d.close()
	sub, err := d.root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	d.sub, d.name = sub, dir
	return sub, nil
}

func (d *dirCache) close() {
	d.sys.close()
	if d.sub != nil {
		d.sub.Close()
		d.sub = nil
	}
}

// unpackOne writes object i to its name under dirs.root.
func (p *Package) unpackOne(dirs *dirCache, i int, overwrite bool) (err error) {
	o := &p.objects[i]
	dir, base := split(o.Name)
	root, err := dirs.open(dir)
	if err != nil {
		return err
	}
	r, err := p.OpenObject(i)
	if err != nil {
		return err
	}
	defer r.Close()
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		if fi, err := root.Lstat(base); err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular() {
				return &fs.PathError{Op: "unpack", Path: o.Name, Err: errors.New("refusing to replace a symbolic link or non-regular file")}
			}
		}
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := dirs.create(root, base, flag)
	if err != nil {
		return &fs.PathError{Op: "unpack", Path: o.Name, Err: err}
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			root.Remove(base)
		}
	}()
	n, err := io.CopyBuffer(f, io.LimitReader(r, int64(o.Size)), dirs.buf)
	if err != nil {
		return fmt.Errorf("pack: unpacking %q: %w", o.Name, err)
	}
	if uint64(n) != o.Size {
		return fmt.Errorf("pack: unpacking %q: wrote %d of %d bytes: %w", o.Name, n, o.Size, io.ErrUnexpectedEOF)
	}
	return nil
}
