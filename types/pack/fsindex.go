package pack

import (
	"io/fs"
	"slices"
	"strings"
)

// fsIndex is the file tree of the objects whose names are valid fs paths,
// with the directories the names imply. Entries are grouped by directory;
// each group is sorted by base name, and a directory's group comes after
// its parent's, so walking entries in order meets parents first.
//
// Building it costs time and memory linear in the total length of the
// names (directories are keyed by parent and base name, never by their
// whole path), so a hostile name of a million levels costs no more than a
// million short ones.
type fsIndex struct {
	entries []fsEntry
	start   []int32 // the group of directory d is entries[start[d]:start[d+1]]
	dirs    map[dirKey]int32
	bad     map[int]string // object index -> why it is not in the tree
}

// fsEntry is a file or a synthesized directory of the tree.
type fsEntry struct {
	dir, elem string
	obj       int          // object index, or -1 for a directory
	ix        *indexedFile // a file found through the path index (its object)
}

// dirKey names a directory by its parent's number and its base name.
// Directory 0 is the root ".".
type dirKey struct {
	parent int32
	elem   string
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

// index builds the tree on first use.
func (p *Package) index() *fsIndex {
	p.idxOnce.Do(func() {
		p.load() // its error leaves no objects: an empty tree
		p.idx = buildIndex(p.objects, p.cfg.maxPathLen)
	})
	return p.idx
}

// buildIndex builds the tree of objs; names longer than maxLen bytes
// (when maxLen > 0) are left out.
func buildIndex(objs []Object, maxLen int) *fsIndex {
	ix := &fsIndex{bad: map[int]string{}, dirs: map[dirKey]int32{}}
	b := indexBuilder{ix: ix, objs: objs, paths: []string{"."}}
	b.ents = make([]keyedEntry, 0, len(objs)+len(objs)/8+1)
	for i := range objs {
		o := &objs[i]
		switch {
		case o.NameErr != nil:
			ix.bad[i] = "unreadable name: " + o.NameErr.Error()
			continue
		case o.Name == "" || o.Name == "." || !fs.ValidPath(o.Name):
			ix.bad[i] = "not a valid relative path (empty, absolute, \"..\", \".\" or a trailing slash)"
			continue
		case tooLong(o.Name, maxLen):
			ix.bad[i] = errPathTooLong
			continue
		}
		dir, _ := split(o.Name)
		b.ents = append(b.ents, keyedEntry{b.dirID(dir), i})
	}
	b.group()
	return ix
}

// errPathTooLong is why a name longer than the WithMaxPathLength limit is
// not in the tree.
const errPathTooLong = "longer than the path length limit"

// keyedEntry is an entry before grouping: its directory's number and the
// object index, or -1-n for directory number n. Keeping it small matters:
// "bpx ls" spends more time faulting in fresh memory than computing.
type keyedEntry struct {
	dir int32
	ref int
}

// indexBuilder numbers directories as names reveal them; each directory
// other than the root also gets an entry in its parent.
type indexBuilder struct {
	ix     *fsIndex
	objs   []Object
	paths  []string // directory number -> path
	ents   []keyedEntry
	last   string // the previous directory looked up, and its number
	lastID int32
}

// dirID returns the number of directory dir, creating it and its missing
// ancestors.
func (b *indexBuilder) dirID(dir string) int32 {
	if dir == "." {
		return 0
	}
	if dir == b.last && b.lastID > 0 {
		return b.lastID
	}
	id := int32(0)
	for i := 0; i < len(dir); {
		j := strings.IndexByte(dir[i:], '/')
		if j < 0 {
			j = len(dir)
		} else {
			j += i
		}
		key := dirKey{id, dir[i:j]}
		child, ok := b.ix.dirs[key]
		if !ok {
			child = int32(len(b.paths))
			b.paths = append(b.paths, dir[:j])
			b.ix.dirs[key] = child
			b.ents = append(b.ents, keyedEntry{id, -1 - int(child)})
		}
		id = child
		i = j + 1
	}
	b.last, b.lastID = dir, id
	return id
}

// group sorts the entries into directory groups (by number: parents were
// numbered first), each by base name then object (a directory first),
// and drops duplicate names and files that are also directories.
func (b *indexBuilder) group() {
	ix := b.ix
	ndirs := int32(len(b.paths))
	start := make([]int32, ndirs+1)
	for _, e := range b.ents {
		start[e.dir+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	ents := make([]fsEntry, len(b.ents))
	next := slices.Clone(start[:ndirs])
	for _, e := range b.ents {
		var fe fsEntry
		if e.ref >= 0 {
			fe.dir, fe.elem = split(b.objs[e.ref].Name)
			fe.obj = e.ref
		} else {
			fe.dir, fe.elem = split(b.paths[-1-e.ref])
			fe.obj = -1
		}
		ents[next[e.dir]] = fe
		next[e.dir]++
	}
	b.ents = nil
	out := ents[:0]
	for d := range ndirs {
		grp := ents[start[d]:start[d+1]]
		start[d] = int32(len(out))
		if !slices.IsSortedFunc(grp, cmpElemObj) {
			slices.SortFunc(grp, cmpElemObj)
		}
		for i := 0; i < len(grp); {
			j := i + 1
			for j < len(grp) && grp[j].elem == grp[i].elem {
				j++
			}
			if j == i+1 {
				out = append(out, grp[i])
				i = j
				continue
			}
			isDir := grp[i].obj < 0 // directories sort first
			for _, e := range grp[i:j] {
				switch {
				case e.obj < 0:
				case isDir:
					ix.bad[e.obj] = "also a directory of other objects"
				default:
					ix.bad[e.obj] = "duplicate name"
				}
			}
			if isDir {
				out = append(out, grp[i])
			}
			i = j
		}
	}
	start[ndirs] = int32(len(out))
	ix.entries = slices.Clip(out)
	ix.start = start
}

func cmpElemObj(a, b fsEntry) int {
	if c := strings.Compare(a.elem, b.elem); c != 0 {
		return c
	}
	return a.obj - b.obj
}

// dirOf returns the number of directory dir, if the tree has it.
func (ix *fsIndex) dirOf(dir string) (int32, bool) {
	if dir == "." {
		return 0, true
	}
	id := int32(0)
	for {
		i := strings.IndexByte(dir, '/')
		if i < 0 {
			id, ok := ix.dirs[dirKey{id, dir}]
			return id, ok
		}
		var ok bool
		if id, ok = ix.dirs[dirKey{id, dir[:i]}]; !ok {
			return 0, false
		}
		dir = dir[i+1:]
	}
}

// group returns the entries of directory number d.
func (ix *fsIndex) group(d int32) []fsEntry {
	return ix.entries[ix.start[d]:ix.start[d+1]]
}

// lookup returns the entry of name ("." is the root, returned as a
// directory entry named ".").
func (ix *fsIndex) lookup(name string) (fsEntry, bool) {
	if name == "." {
		return fsEntry{dir: ".", elem: ".", obj: -1}, true
	}
	dir, elem := split(name)
	d, ok := ix.dirOf(dir)
	if !ok {
		return fsEntry{}, false
	}
	grp := ix.group(d)
	i, ok := slices.BinarySearchFunc(grp, elem, func(e fsEntry, elem string) int { return strings.Compare(e.elem, elem) })
	if !ok {
		return fsEntry{}, false
	}
	return grp[i], true
}

// children returns the entries of directory name, sorted by name.
func (ix *fsIndex) children(name string) []fsEntry {
	d, ok := ix.dirOf(name)
	if !ok {
		return nil
	}
	return ix.group(d)
}
