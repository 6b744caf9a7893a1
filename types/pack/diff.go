package pack

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/gobpx/bpx"
)

// ChangeOp says how a file differs between two trees.
type ChangeOp uint8

// The kinds of Change.
const (
	Added    ChangeOp = iota + 1 // only in the second tree
	Removed                      // only in the first tree
	Modified                     // in both, with different contents
)

// String returns "added", "removed" or "modified".
func (op ChangeOp) String() string {
	switch op {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Modified:
		return "modified"
	}
	return fmt.Sprintf("ChangeOp(%d)", uint8(op))
}

// Change is one file that differs between two trees.
type Change struct {
	Name string
	Op   ChangeOp
}

// Diff compares the regular files of the trees a and b (packages, or any
// fs.FS such as os.DirFS) by name and content, and returns the files added
// in b, removed from a and modified, sorted by name. Directories count only
// through the files in them. Trees are walked as WalkTree walks them, as
// for Writer.AddFS: symbolic links are followed, and a dangling link, a
// link to a directory that holds it or any other entry (a named pipe) is
// an error naming it, never skipped (which would call trees that differ
// the same).
//
// For two Packages, files of equal size whose bytes lie at the same
// offsets of data sections stored byte for byte alike (as bpx add and the
// Editor leave untouched sections) are equal without decompressing
// anything; the others are hashed in data order, so no section is
// decompressed twice while it fits the package's cache. Objects with names
// that are not valid fs paths are not compared.
func Diff(a, b fs.FS) ([]Change, error) {
	fa, err := listFiles(a)
	if err != nil {
		return nil, err
	}
	fb, err := listFiles(b)
	if err != nil {
		return nil, err
	}
	pa, _ := a.(*Package)
	pb, _ := b.(*Package)
	var changes []Change
	var check []string // same size, not known equal
	same := newSectionMatcher(pa, pb)
	for name, x := range fa {
		y, ok := fb[name]
		switch {
		case !ok:
			changes = append(changes, Change{name, Removed})
		case x.size != y.size:
			changes = append(changes, Change{name, Modified})
		case x.size == 0:
		case same != nil && same.placedAlike(x.obj, y.obj):
		default:
			check = append(check, name)
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			changes = append(changes, Change{name, Added})
		}
	}
	if len(check) > 0 {
		ha, err := hashFiles(a, fa, check)
		if err != nil {
			return nil, err
		}
		hb, err := hashFiles(b, fb, check)
		if err != nil {
			return nil, err
		}
		for _, name := range check {
			if ha[name] != hb[name] {
				changes = append(changes, Change{name, Modified})
			}
		}
	}
	slices.SortFunc(changes, func(x, y Change) int { return cmpPath(x.Name, y.Name) })
	return changes, nil
}

// diffFile is what Diff knows of a file before reading it.
type diffFile struct {
	size int64
	obj  int // object index in a Package, else -1
}

// listFiles returns the regular files of fsys by name, as WalkTree finds
// them.
func listFiles(fsys fs.FS) (map[string]diffFile, error) {
	files := map[string]diffFile{}
	if p, ok := fsys.(*Package); ok {
		bad := p.InvalidPaths()
		for i := range p.objects {
			if _, skip := bad[i]; !skip {
				files[p.objects[i].Name] = diffFile{int64(p.objects[i].Size), i}
			}
		}
		return files, nil
	}
	err := WalkTree(fsys, ".", nil, func(name string, info fs.FileInfo) error {
		if !info.IsDir() {
			files[name] = diffFile{info.Size(), -1}
		}
		return nil
	})
	return files, err
}

// hashFiles returns the SHA-256 of the named files of fsys. The objects of
// a Package are read in data order.
func hashFiles(fsys fs.FS, files map[string]diffFile, names []string) (map[string][32]byte, error) {
	order := slices.Clone(names)
	if p, ok := fsys.(*Package); ok {
		slices.SortFunc(order, func(x, y string) int {
			ox, oy := &p.objects[files[x].obj], &p.objects[files[y].obj]
			return cmp.Or(cmp.Compare(ox.Start, oy.Start), cmp.Compare(ox.Offset, oy.Offset))
		})
	}
	sums := make(map[string][32]byte, len(order))
	h := sha256.New()
	for _, name := range order {
		f, err := fsys.Open(name)
		if err != nil {
			return nil, err
		}
		h.Reset()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("pack: diff: %s: %w", name, err)
		}
		sums[name] = [32]byte(h.Sum(nil))
	}
	return sums, nil
}

// sectionMatcher tells whether data sections of two packages are stored
// byte for byte alike, reading each pair's stored bytes at most once.
type sectionMatcher struct {
	a, b *Package
	memo map[[2]int]bool
}

func newSectionMatcher(a, b *Package) *sectionMatcher {
	if a == nil || b == nil || a.Revision != 2 || b.Revision != 2 || a.checkSpans(true) != nil || b.checkSpans(true) != nil {
		return nil // objects that overlap over many sections: hash them instead
	}
	return &sectionMatcher{a: a, b: b, memo: map[[2]int]bool{}}
}

// placedAlike reports whether objects i of a and j of b are stored at the
// same offsets of sections stored alike (and so hold the same bytes).
func (m *sectionMatcher) placedAlike(i, j int) bool {
	sa, err := m.a.segments(&m.a.objects[i])
	if err != nil {
		return false
	}
	sb, err := m.b.segments(&m.b.objects[j])
	if err != nil || len(sa) != len(sb) {
		return false
	}
	for k := range sa {
		if sa[k].off != sb[k].off || sa[k].n != sb[k].n || !m.alike(sa[k].sec, sb[k].sec) {
			return false
		}
	}
	return true
}

// alike compares the headers and stored bytes of section x of a and y of b.
func (m *sectionMatcher) alike(x, y int) bool {
	if v, ok := m.memo[[2]int{x, y}]; ok {
		return v
	}
	s, t := m.a.Reader.Sections[x], m.b.Reader.Sections[y]
	eq := s.Flags == t.Flags && s.CSize == t.CSize && s.USize == t.USize && s.Checksum == t.Checksum
	if eq {
		eq = sameBytes(s.OpenRaw(), t.OpenRaw())
	}
	m.memo[[2]int{x, y}] = eq
	return eq
}

// WritePatch adds to w what turns the tree a into the tree b when the
// package w writes is layered over a (see package overlay): the added and
// modified files of changes (as Diff returns them), copied from b, and the
// removed ones as removals (Writer.Remove). A directory of a whose files
// are all removed, and which b does not hold, is removed as one name. As
// for Diff, trees are walked as WalkTree walks them.
func WritePatch(w *Writer, a, b fs.FS, changes []Change) error {
	fa, err := listFiles(a)
	if err != nil {
		return err
	}
	fb, err := listFiles(b)
	if err != nil {
		return err
	}
	// Files per directory of a, and how many of them go.
	inA, gone := map[string]int{}, map[string]int{}
	for name := range fa {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			inA[d]++
		}
	}
	inB := map[string]bool{}
	for name := range fb {
		inB[name] = true
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			inB[d] = true
		}
	}
	for _, c := range changes {
		if c.Op == Removed {
			for d := path.Dir(c.Name); d != "."; d = path.Dir(d) {
				gone[d]++
			}
		}
	}
	var removals []string
	for _, c := range changes {
		switch c.Op {
		case Removed:
			// The topmost directory that goes whole, else the file.
			name := c.Name
			for d := path.Dir(c.Name); d != "."; d = path.Dir(d) {
				if gone[d] == inA[d] && !inB[d] {
					name = d
				}
			}
			if len(removals) == 0 || removals[len(removals)-1] != name {
				removals = append(removals, name)
			}
		case Added, Modified:
			if err := addTree(b, c.Name, w.createTimed, w.finishObject); err != nil {
				return err
			}
		}
	}
	return w.Remove(removals...)
}

// sameBytes compares two readers of equal length in 64 KiB pieces,
// stopping at the first difference or error.
func sameBytes(x, y io.Reader) bool {
	bx, by := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		nx, errx := io.ReadFull(x, bx)
		ny, erry := io.ReadFull(y, by)
		if nx != ny || !bytes.Equal(bx[:nx], by[:ny]) {
			return false
		}
		if errx != nil || erry != nil {
			return (errx == io.EOF || errx == io.ErrUnexpectedEOF) && errx == erry
		}
	}
}

// DiffDigests is Diff for two Packages that reads no object: files of
// the same size are equal when their CRC-32C digests (SectionDigests)
// are. A report, not a proof: a CRC-32C can be forged, so use it where
// reading the objects costs too much (a package on a server) and nothing
// depends on its answer. A package without usable object digests fails
// with an error matching bpx.ErrUnsupported.
func DiffDigests(a, b *Package) ([]Change, error) {
	var sums [2][]uint32
	for i, p := range []*Package{a, b} {
		if err := p.load(); err != nil {
			return nil, err
		}
		if sums[i] = p.digests(); sums[i] == nil {
			return nil, fmt.Errorf("pack: DiffDigests: a package without object digests: %w", bpx.ErrUnsupported)
		}
	}
	fa, err := listFiles(a)
	if err != nil {
		return nil, err
	}
	fb, err := listFiles(b)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for name, x := range fa {
		y, ok := fb[name]
		switch {
		case !ok:
			changes = append(changes, Change{name, Removed})
		case x.size != y.size || sums[0][x.obj] != sums[1][y.obj]:
			changes = append(changes, Change{name, Modified})
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			changes = append(changes, Change{name, Added})
		}
	}
	slices.SortFunc(changes, func(x, y Change) int { return cmpPath(x.Name, y.Name) })
	return changes, nil
}
