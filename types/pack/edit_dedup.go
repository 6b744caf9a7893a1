package pack

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"path"
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
// sections, verified as any read is) when a file of that size comes: the
// object the file replaces and those of its base name first (a tree added
// again, or copied under another name), then the others. No other section
// is read, and the sections decoded hold at most as many bytes as the
// files added for the first, a quarter as many for the others, plus the
// size of each file found already there. So a copy is not always found:
// one whose section is much larger than it, or beyond that budget, is
// stored again. A package with object digests (see SectionDigests) needs
// no such guess for files up to 1 MiB: only objects whose digest is the
// file's CRC-32C are read, and so every copy kept is found. An object
// removed or replaced before the file comes is no longer shared (its bytes may be going away); one removed after keeps
// its bytes for the file.
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
	e.nw.fitFiles(fsys, files, others)
	return addFiles(e, e.nw, fsys, files, e.priorFor(files))
}

func (e *Editor) createFile(f treeFile) (io.Writer, editEntry, error) {
	w, err := e.create(f.name, f.size, f.class)
	if err == nil {
		e.nw.obj.mtime = unixTime(f.mod)
	}
	return w, editEntry{base: -1, fresh: len(e.nw.table) / ObjectEntrySize}, err
}

func (e *Editor) linkFile(f treeFile, to editEntry) error {
	if err := e.creatable(f.name); err != nil {
		return err
	}
	e.put(f.name, editEntry{base: to.base, fresh: to.fresh, timed: true, mtime: unixTime(f.mod)})
	return nil
}

// priorObjects are the objects of an Editor's source that the files of
// one AddFS may share: those the edit keeps whose size a file being added
// has. Each is hashed (see contentKey) when a file of its size comes, and
// shared only while the edit keeps it: an object replaced or removed since
// may be losing its bytes.
//
// Hashing an object decodes its sections, which costs about a quarter of
// the time of compressing as many bytes (xz at the default level), and is
// lost when the object differs. So the sections decoded are bounded, in
// bytes, by two budgets. The likely copies of a file, the object it
// replaces (a tree added again) and those of the same base name (a tree
// copied under another name), come first and spend budget: at first as
// many bytes as the files added, and each file found adds its size. The
// other objects of its size, in the order of their bytes, spend other: a
// quarter of the bytes added at first (otherShare), and each file found
// among them adds its size. A large object is hashed as far as prefixLen first (its
// first section), and whole only when a file has its size and first
// bytes, spending budget and, if need be, the file's size more.
type priorObjects struct {
	p        *Package
	files    map[string]editEntry // the Editor's files
	refs     []int32              // the files of each object of p; > 0: kept
	bySize   map[int64][]int      // by size, not hashed yet, in the order of their bytes
	byBase   map[baseKey][]int    // by size and base name
	hashed   map[int]bool         // hashed (or failed to read)
	read     map[int]bool         // sections decoded to hash objects
	budget   int64                // bytes of sections that may still be decoded for likely copies
	other    int64                // and for others
	sums     []uint32             // p's object digests, or nil
	matches  int64                // bytes of sections that may be decoded for objects whose digest matched
	keys     map[contentKey][]int // hashed, by content key
	byPrefix map[contentKey][]int // large ones hashed as far as prefixLen, by prefix key
}

// otherShare divides the bytes of the files added into the first budget
// for objects other than their likely copies (see priorObjects): the
// objects of a size are mostly not copies, so that this bounds what is
// lost in comparing them, and each found pays for more.
const otherShare = 4

// baseKey is an object's size and the last element of its name.
type baseKey struct {
	size int64
	base string
}

// priorFor returns the objects of the source that the edit keeps and
// whose size one of files has.
func (e *Editor) priorFor(files []treeFile) *priorObjects {
	if e.err != nil {
		return nil
	}
	pr := &priorObjects{p: e.src, files: e.files, refs: e.refs, bySize: map[int64][]int{}, byBase: map[baseKey][]int{},
		hashed: map[int]bool{}, read: map[int]bool{}, keys: map[contentKey][]int{}, byPrefix: map[contentKey][]int{}}
	sizes := make(map[int64]bool, len(files))
	for _, f := range files {
		sizes[f.size] = true
		pr.budget += f.size
	}
	pr.other = pr.budget / otherShare
	pr.sums = e.src.digests()
	// A matching digest nearly always is a copy: its sections are worth
	// decoding wherever they are. The bound is for a hostile package
	// whose objects match without being copies.
	pr.matches = 64<<20 + 4*pr.budget
	for _, en := range e.files {
		if en.base < 0 {
			continue
		}
		if s := int64(e.src.objects[en.base].Size); s > 0 && sizes[s] {
			pr.bySize[s] = append(pr.bySize[s], en.base)
		}
	}
	// In the order of their bytes: objects of one section, or sharing
	// bytes, are next to each other.
	for s, objs := range pr.bySize {
		slices.SortFunc(objs, func(a, b int) int {
			oa, ob := &e.src.objects[a], &e.src.objects[b]
			return cmp.Or(cmp.Compare(oa.Start, ob.Start), cmp.Compare(oa.Offset, ob.Offset), cmp.Compare(a, b))
		})
		objs = slices.Compact(objs)
		pr.bySize[s] = objs
		for _, i := range objs {
			k := baseKey{s, path.Base(e.src.objects[i].Name)}
			pr.byBase[k] = append(pr.byBase[k], i)
		}
	}
	return pr
}

// has reports whether objects of the size may be hashed.
func (pr *priorObjects) has(size int64) bool { return pr != nil && pr.bySize[size] != nil }

// live reports whether the edit keeps object i.
func (pr *priorObjects) live(i int) bool { return pr.refs[i] > 0 }

// found credits the budgets with the file f, found to be object i.
func (pr *priorObjects) found(f treeFile, i int) {
	if path.Base(pr.p.objects[i].Name) == path.Base(f.name) {
		pr.budget += f.size
	} else {
		pr.other += f.size
	}
}

// sections calls f with each section holding the first n bytes of o.
func (pr *priorObjects) sections(o *Object, n int64, f func(sec int)) {
	pr.p.walkSegments(o, func(sg segment) error {
		if int64(sg.start) >= n {
			return errSectionsDone
		}
		f(sg.sec)
		return nil
	})
}

var errSectionsDone = errors.New("done")

// cost returns how many bytes of sections not decoded yet hold the first
// n bytes of o.
func (pr *priorObjects) cost(o *Object, n int64) int64 {
	var c int64
	pr.sections(o, n, func(sec int) {
		if !pr.read[sec] {
			c += int64(pr.p.secSize[sec])
		}
	})
	return c
}

// keyPrior hashes the objects of prior that the file f may copy: the
// object it replaces, those of its size and base name, and the others of
// its size, as the budgets allow. When the file is whole in head and the
// package has object digests, only the objects whose digest is the
// file's CRC-32C can be copies: those are hashed, and no other, from a
// budget of their own (matches).
func (d *dedup) keyPrior(f treeFile, head []byte, whole bool) {
	pr := d.prior
	if pr == nil {
		return
	}
	if pr.sums != nil && whole {
		sum := objectDigest(head)
		if en, ok := pr.files[f.name]; ok && en.base >= 0 && int64(pr.p.objects[en.base].Size) == f.size && pr.sums[en.base] == sum {
			d.keyPriorObject(en.base, &pr.matches, 0, false)
		}
		for _, i := range pr.bySize[f.size] {
			if pr.sums[i] == sum {
				d.keyPriorObject(i, &pr.matches, 0, false)
			}
		}
		return
	}
	if en, ok := pr.files[f.name]; ok && en.base >= 0 && int64(pr.p.objects[en.base].Size) == f.size {
		d.keyPriorObject(en.base, &pr.budget, 0, false)
	}
	bk := baseKey{f.size, path.Base(f.name)}
	putList(pr.byBase, bk, d.keyPriorList(pr.byBase[bk], &pr.budget))
	putList(pr.bySize, f.size, d.keyPriorList(pr.bySize[f.size], &pr.other))
}

// keyPriorList hashes the objects of objs in turn while budget allows, and
// returns those left.
func (d *dedup) keyPriorList(objs []int, budget *int64) []int {
	for len(objs) > 0 && d.keyPriorObject(objs[0], budget, 0, false) {
		objs = objs[1:]
	}
	return objs
}

// putList sets m[k] to objs, or deletes it if empty.
func putList[K comparable](m map[K][]int, k K, objs []int) {
	if len(objs) == 0 {
		delete(m, k)
	} else {
		m[k] = objs
	}
}

// keyPriorWhole hashes the whole of the large objects of prior whose
// first bytes have the prefix key pk, for the file f.
func (d *dedup) keyPriorWhole(f treeFile, pk contentKey) {
	pr := d.prior
	if pr == nil {
		return
	}
	objs := pr.byPrefix[pk]
	delete(pr.byPrefix, pk)
	for _, i := range objs {
		d.keyPriorObject(i, &pr.budget, f.size, true)
	}
}

// keyPriorObject hashes object i of prior, unless the edit no longer keeps
// it or it was hashed: a small one whole, a large one as far as prefixLen
// (with whole, all of it), spending the bytes of the sections it decodes
// from *budget, which may go extra bytes below zero. It reports false
// when the budget does not allow it. An object that does not read back is
// not shared.
func (d *dedup) keyPriorObject(i int, budget *int64, extra int64, whole bool) bool {
	pr := d.prior
	if !pr.live(i) || (pr.hashed[i] && !whole) {
		return true
	}
	o := &pr.p.objects[i]
	size := int64(o.Size)
	whole = whole || size <= dedupBuffer
	n := size
	if !whole {
		n = min(size, prefixLen)
	}
	c := pr.cost(o, n)
	if c > *budget+extra {
		return false
	}
	*budget -= c
	pr.hashed[i] = true
	pr.sections(o, n, func(sec int) { pr.read[sec] = true })
	key, ok := d.keyObject(o, n, whole)
	if !ok {
		return true
	}
	d.seen[size] = true
	if whole {
		pr.keys[key] = append(pr.keys[key], i)
	} else {
		d.prefixes[key] = true
		pr.byPrefix[key] = append(pr.byPrefix[key], i)
	}
	return true
}

// keyObject returns the content key of o (whole) or its prefix key, read
// through the package's verified reads as far as n bytes.
func (d *dedup) keyObject(o *Object, n int64, whole bool) (contentKey, bool) {
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
		return d.seeds.prefixKey(int64(o.Size), kw.prefix), true
	}
	return kw.key(), true
}
