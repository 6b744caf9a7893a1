package pack

import (
	"io/fs"
	"slices"
)

// cleanNames reports, in one pass and without allocating, that no object
// name is invalid: each is a valid fs path and the names are strictly
// increasing in path order (see cmpPath), which is the order fs.WalkDir
// visits files in and Writer.AddFS stores them in. In that order no name
// can repeat, and the names inside a directory D ("D/...") immediately
// follow D, so a file that is also a directory shows in the next name.
// False means "not proven": the index then finds what is wrong, if
// anything. A name longer than maxLen bytes (when maxLen > 0, see
// WithMaxPathLength) is not clean either.
func cleanNames(objs []Object, maxLen int) bool {
	for i := range objs {
		name := objs[i].Name
		if objs[i].NameErr != nil || name == "" || name == "." || !fs.ValidPath(name) || tooLong(name, maxLen) {
			return false
		}
		if i == 0 {
			continue
		}
		prev := objs[i-1].Name
		if cmpPath(prev, name) >= 0 {
			return false
		}
		if len(name) > len(prev) && name[len(prev)] == '/' && name[:len(prev)] == prev {
			return false // prev is a file and a directory
		}
	}
	return true
}

// tooLong reports whether name is longer than maxLen bytes, when maxLen
// is a limit (> 0).
func tooLong(name string, maxLen int) bool { return maxLen > 0 && len(name) > maxLen }

// cmpPath compares like strings.Compare except that '/' sorts before
// every other byte, so that a directory's contents come right after it:
// "a/b/c" < "a/b-c" < "a/b.txt".
func cmpPath(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	switch {
	case i == n:
		return len(a) - len(b)
	case a[i] == '/':
		return -1
	case b[i] == '/':
		return 1
	case a[i] < b[i]:
		return -1
	default:
		return 1
	}
}

// ComparePaths orders slash-separated paths as fs.WalkDir visits them,
// the order Writer.AddFS stores files in: like strings.Compare, except
// that '/' sorts before every other byte, so that a directory's contents
// come right after it ("a/b/c" < "a/b-c" < "a/b.txt").
func ComparePaths(a, b string) int { return cmpPath(a, b) }

// PathOrdered reports whether the package's object names are valid,
// distinct fs paths in ComparePaths order, none both a file and a
// directory, as packages written from a directory tree are. Objects then
// lists the files of the tree in fs.WalkDir's order, and the objects
// below a directory D are the run of names after D that start with
// "D/". It is computed once, without building the directory index.
func (p *Package) PathOrdered() bool { return p.isClean() }

// isClean reports whether cleanNames holds for the package, computing it
// once.
func (p *Package) isClean() bool {
	p.cleanOnce.Do(func() {
		p.load() // its error leaves no objects
		p.clean = cleanNames(p.objects, p.cfg.maxPathLen)
		p.cleanKnown.Store(true)
	})
	return p.clean
}

// lookupClean finds the file name by binary search when the names are
// clean (then sorted in path order, each a file of the tree), so that
// opening one file of a freshly opened package does not build the whole
// directory tree. Directories and missing names are left to the index.
func (p *Package) lookupClean(name string) (fsEntry, bool) {
	if name == "." {
		return fsEntry{}, false
	}
	var i int
	var found bool
	if !p.cleanKnown.Load() && p.scans.Add(1) <= maxScans {
		i, found = p.scanName(name)
	} else {
		if !p.isClean() {
			return fsEntry{}, false
		}
		i, found = slices.BinarySearchFunc(p.objects, name, func(o Object, name string) int { return cmpPath(o.Name, name) })
	}
	if !found {
		return fsEntry{}, false
	}
	dir, elem := split(name)
	return fsEntry{dir: dir, elem: elem, obj: i}, true
}

// maxScans is how many lookups scanName answers before lookupClean
// checks every name once (isClean) and searches from then on. A scan
// compares name with each object's name, mostly by length: for a process
// that opens one file of a package (bpx cat) it costs a tenth of checking
// every name.
const maxScans = 8

// scanName finds the object called name, a valid fs path, in one pass,
// when that proves it is a file of the fs.FS: its name is readable, not
// too long, no other object has it, and no object name is a path below
// it or above it (which could make it a directory or put it under a
// file). False means "not proven": the index decides.
func (p *Package) scanName(name string) (int, bool) {
	if tooLong(name, p.cfg.maxPathLen) {
		return -1, false
	}
	found := -1
	for i := range p.objects {
		n := p.objects[i].Name
		switch {
		case len(n) == len(name):
			if n == name {
				if found >= 0 || p.objects[i].NameErr != nil {
					return -1, false
				}
				found = i
			}
		case len(n) < len(name):
			if name[len(n)] == '/' && name[:len(n)] == n {
				return -1, false // a file above it
			}
		default:
			if n[len(name)] == '/' && n[:len(name)] == name {
				return -1, false // objects below it
			}
		}
	}
	return found, found >= 0
}
