package explorer

import (
	"slices"
	"sort"
	"strings"

	"github.com/gobpx/bpx/types/pack"
)

// The listing of a directory of a package usually needs no directory
// tree: packers store objects in path order (the order fs.WalkDir visits
// a tree), so the objects below a directory are one run of the object
// table, found by binary search, and its entries come in name order from
// one pass over the run. That keeps the first listing of a directory of a
// million objects from building the package's whole index and a
// fs.DirEntry per object (about 3x faster, measured by
// BenchmarkList1000Cold). Packages that are not in path order, or whose
// names are not all valid paths, take the fs.FS way.

// packageDir returns the package whose objects dir lies in, and dir inside
// it, when the tree shows the package as it is (not in a stack).
func (s *Server) packageDir(dir string) (*pack.Package, string, bool) {
	if p, ok := s.tree.FS.(*pack.Package); ok {
		return p, dir, true
	}
	if s.tree.byLabel == nil {
		return nil, "", false
	}
	label, rest, _ := strings.Cut(dir, "/")
	in := s.tree.byLabel[label]
	if in == nil || in.pkg == nil {
		return nil, "", false
	}
	if rest == "" {
		rest = "."
	}
	return in.pkg, rest, true
}

// objectRun returns the objects below directory dir of the path-ordered
// package p, and the prefix of their names ("" for the root).
func objectRun(p *pack.Package, dir string) ([]pack.Object, string) {
	objs := p.Objects()
	if dir == "." {
		return objs, ""
	}
	prefix := dir + "/"
	lo := sort.Search(len(objs), func(i int) bool { return pack.ComparePaths(objs[i].Name, dir) > 0 })
	n := sort.Search(len(objs)-lo, func(j int) bool { return !strings.HasPrefix(objs[lo+j].Name, prefix) })
	return objs[lo : lo+n], prefix
}

// cleanListing lists directory dir of p as readListing does, when p is
// path-ordered and dir is one of its directories.
func (s *Server) cleanListing(p *pack.Package, dir string) (*listing, bool) {
	if !p.PathOrdered() {
		return nil, false
	}
	run, prefix := objectRun(p, dir)
	if len(run) == 0 {
		return nil, false // no such directory, or an empty package: readListing says
	}
	flat := true
	for i := range run {
		if strings.IndexByte(run[i].Name[len(prefix):], '/') >= 0 {
			flat = false
			break
		}
	}
	if flat {
		return &listing{run: run, prefix: prefix}, true
	}
	ents := make([]listEntry, 0, len(run))
	ndirs := 0
	last := ""
	for i := range run {
		rest := run[i].Name[len(prefix):]
		if k := strings.IndexByte(rest, '/'); k >= 0 {
			if sub := rest[:k]; sub != last {
				ents = append(ents, listEntry{name: sub, dir: true})
				last = sub
				ndirs++
			}
			continue
		}
		ents = append(ents, listEntry{name: rest, size: int64(run[i].Size)})
	}
	return &listing{ents: dirsFirst(ents, ndirs)}, true
}

// cleanDeepListing is deepListing for a path-ordered package.
func (s *Server) cleanDeepListing(p *pack.Package, dir, q string) ([]listEntry, bool) {
	if !p.PathOrdered() {
		return nil, false
	}
	run, prefix := objectRun(p, dir)
	if len(run) == 0 {
		return nil, false
	}
	var ents []listEntry
	for i := range run {
		if rest := run[i].Name[len(prefix):]; containsFold(rest, q) {
			ents = append(ents, listEntry{name: rest, size: int64(run[i].Size)})
		}
	}
	if !slices.IsSortedFunc(ents, cmpName) {
		slices.SortFunc(ents, cmpName)
	}
	return ents, true
}
