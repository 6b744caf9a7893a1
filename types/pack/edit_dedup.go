package pack

import (
	"cmp"
	"io"
	"io/fs"
	"slices"

	"github.com/gobpx/bpx/sign"
)

// AddFS adds every regular file of fsys as an object named by its path,
// replacing objects of the same names, like Writer.AddFS; given paths, it
// adds only those files and the trees of those directories, still named by
// their whole paths in fsys.
//
// Files with the same bytes are stored once, as Writer.AddFS stores them,
// and a file with the bytes of an object of the package that the edit
// keeps is not stored at all: its object shares those bytes. To tell, the
// objects whose size a file being added has are read (decoding their
// sections, verified as any read is) when the first file of that size
// comes; no other section is read. An object removed or replaced before
// the file comes is no longer shared (its bytes may be going away); one
// removed after keeps its bytes for the file.
func (e *Editor) AddFS(fsys fs.FS, paths ...string) error {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var files []treeFile
	for _, p := range paths {
		f, err := listTree(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, f...)
	}
	// Sections of the source stay, but for those that lose every object
	// and its signature.
	others := len(e.src.Reader.Sections) - 2 - len(e.src.Reader.SectionsOfType(sign.SectionType))
	e.nw.fitFiles(files, others)
	return addFiles(e, e.nw, fsys, files, e.priorFor(files))
}

func (e *Editor) createFile(name string, size int64) (io.Writer, editEntry, error) {
	w, err := e.CreateSized(name, size)
	return w, editEntry{base: -1, fresh: len(e.nw.table) / ObjectEntrySize}, err
}

func (e *Editor) linkFile(name string, to editEntry) error {
	if err := e.creatable(name); err != nil {
		return err
	}
	e.put(name, &editEntry{base: to.base, fresh: to.fresh})
	return nil
}

// priorObjects are the objects of an Editor's source that the files of
// one AddFS may share: those the edit keeps whose size a file being added
// has. Each is hashed (see contentKey) when the first file of its size
// comes, and shared only while the edit keeps it: an object replaced or
// removed since may be losing its bytes.
type priorObjects struct {
	p        *Package
	refs     []int32              // the files of each object of p; > 0: kept
	pending  map[int64][]int      // by size, not hashed yet, in the order of their bytes
	keys     map[contentKey][]int // hashed, by content key
	byPrefix map[contentKey][]int // large ones hashed as far as prefixLen, by prefix key
}

// priorFor returns the objects of the source that the edit keeps and
// whose size one of files has.
func (e *Editor) priorFor(files []treeFile) *priorObjects {
	if e.err != nil {
		return nil
	}
	sizes := make(map[int64]bool, len(files))
	for _, f := range files {
		sizes[f.size] = true
	}
	pr := &priorObjects{p: e.src, refs: e.refs, pending: map[int64][]int{}}
	for _, en := range e.files {
		if en.base < 0 {
			continue
		}
		if s := int64(e.src.objects[en.base].Size); s > 0 && sizes[s] {
			pr.pending[s] = append(pr.pending[s], en.base)
		}
	}
	// In the order of their bytes: objects that share bytes are next to
	// each other, and read once.
	for s, objs := range pr.pending {
		slices.SortFunc(objs, func(a, b int) int {
			oa, ob := &e.src.objects[a], &e.src.objects[b]
			return cmp.Or(cmp.Compare(oa.Start, ob.Start), cmp.Compare(oa.Offset, ob.Offset), cmp.Compare(a, b))
		})
		pr.pending[s] = slices.Compact(objs)
	}
	return pr
}

// has reports whether objects of the size are waiting to be hashed.
func (pr *priorObjects) has(size int64) bool { return pr != nil && pr.pending[size] != nil }

// live reports whether the edit keeps object i.
func (pr *priorObjects) live(i int) bool { return pr.refs[i] > 0 }

// keyPrior hashes the objects of prior of the given size, the first time
// a file of that size comes: a small one whole, a large one as far as
// prefixLen. An object that does not read back is not shared.
func (d *dedup) keyPrior(size int64) {
	pr := d.prior
	if pr == nil || pr.pending[size] == nil {
		return
	}
	objs := pr.pending[size]
	delete(pr.pending, size)
	whole := size <= dedupBuffer
	d.keyObjects(objs, whole, func(i int, key contentKey) {
		d.seen[size] = true
		if whole {
			pr.keys[key] = append(pr.keys[key], i)
		} else {
			d.prefixes[key] = true
			pr.byPrefix[key] = append(pr.byPrefix[key], i)
		}
	})
}

// keyPriorWhole hashes the whole of the large objects of prior whose
// first bytes have the prefix key pk.
func (d *dedup) keyPriorWhole(pk contentKey) {
	pr := d.prior
	if pr == nil {
		return
	}
	objs := pr.byPrefix[pk]
	delete(pr.byPrefix, pk)
	d.keyObjects(objs, true, func(i int, key contentKey) { pr.keys[key] = append(pr.keys[key], i) })
}

// keyObjects calls f with each object of objs that the edit keeps and
// its content key (whole) or prefix key, reading the objects in order
// once for each run that shares bytes.
func (d *dedup) keyObjects(objs []int, whole bool, f func(i int, key contentKey)) {
	var prev *Object
	var key contentKey
	var ok bool
	for _, i := range objs {
		if !d.prior.live(i) {
			continue
		}
		o := &d.prior.p.objects[i]
		if prev == nil || o.Start != prev.Start || o.Offset != prev.Offset {
			prev = o
			key, ok = d.keyObject(o, whole)
		}
		if ok {
			f(i, key)
		}
	}
}

// keyObject returns the content key of o (whole) or its prefix key, read
// through the package's verified reads.
func (d *dedup) keyObject(o *Object, whole bool) (contentKey, bool) {
	size := int64(o.Size)
	n := size
	if !whole {
		n = min(size, prefixLen)
	}
	r, err := d.prior.p.OpenObject(o.Index)
	if err != nil {
		return contentKey{}, false
	}
	defer r.Close()
	kw := d.seeds.keyWriter()
	if d.copyBuf == nil {
		d.copyBuf = make([]byte, 32<<10)
	}
	if _, err := io.CopyBuffer(kw, io.LimitReader(r, n), d.copyBuf); err != nil || kw.n != n {
		return contentKey{}, false
	}
	if !whole {
		return d.seeds.prefixKey(size, kw.prefix), true
	}
	return kw.key(), true
}
