package pack

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// rawEdit are the options of the dedup tests' packages and edits: raw
// sections, so that their sizes count the bytes stored, small enough that
// the 40,000-byte files of dupTree have sections of their own, so that
// comparing one costs no more than its size (see priorObjects).
var rawEdit = []WriterOption{WithSectionSize(16 << 10), WithCompression(bpx.CompressNone)}

// noiseOf returns n random bytes drawn from seed.
func noiseOf(seed byte, n int) []byte {
	rnd := rand.New(rand.NewChaCha8([32]byte{seed}))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rnd.Uint32())
	}
	return b
}

// dataBytes returns how many bytes the data sections of p hold.
func dataBytes(p *Package) uint64 {
	var n uint64
	for _, s := range p.Reader.SectionsOfType(SectionData) {
		n += uint64(s.USize)
	}
	return n
}

// union returns the files of base with those of over replacing them.
func union(base, over fstest.MapFS) fstest.MapFS {
	m := maps.Clone(base)
	maps.Copy(m, over)
	return m
}

// checkDedupEdit adds the files of add to the package of base with an
// Editor (after first, if not nil), checks that every file reads back and
// that the data sections grew by want bytes, and returns the result.
func checkDedupEdit(t *testing.T, base, add fstest.MapFS, first func(e *Editor) error, want int64, opts ...WriterOption) *Package {
	t.Helper()
	b := pkgBytes(t, base, rawEdit...)
	before := dataBytes(openBytes(t, b))
	out := edited(t, b, func(e *Editor) error {
		if first != nil {
			if err := first(e); err != nil {
				return err
			}
		}
		return e.AddFS(add)
	}, append(rawEdit, opts...)...)
	p := openBytes(t, out)
	if got := int64(dataBytes(p)) - int64(before); got != want {
		t.Errorf("the data sections grew by %d bytes, want %d", got, want)
	}
	return p
}

// TestEditorAddFSStoresDuplicatesOnce: files that copy each other or an
// object of the package are stored once; the data grows by the new
// distinct bytes only, and every file reads back.
func TestEditorAddFSStoresDuplicatesOnce(t *testing.T) {
	for _, large := range []bool{false, true} {
		t.Run(map[bool]string{false: "small", true: "large"}[large], func(t *testing.T) {
			if large { // big/*.raw and the new 160,000-byte files are large
				defer func(n int64) { dedupBuffer = n }(dedupBuffer)
				dedupBuffer = 1000
			}
			base := dupTree()
			fresh := noiseOf(9, 30_000)
			// The size and first 64 KiB of big/one.raw, other bytes after.
			bigOther := bytes.Clone(base["big/one.raw"].Data)
			bigOther[150_000] ^= 1
			add := fstest.MapFS{
				"new/noise.bin":         {Data: base["a/noise.bin"].Data},
				"new/copy-of-other.bin": {Data: base["b/other.bin"].Data},
				"new/two.raw":           {Data: base["big/two.raw"].Data},
				"new/fresh1.bin":        {Data: fresh},
				"new/fresh2.bin":        {Data: fresh},
				"new/x/fresh3.bin":      {Data: fresh},
				"new/one.raw":           {Data: bigOther},
				"new/empty":             {Data: nil},
				"small/text.txt":        {Data: []byte("small\n")}, // replaced by itself
			}
			p := checkDedupEdit(t, base, add, nil, 30_000+160_000)
			checkTree(t, p, union(base, add))
			if dead, err := p.DeadBytes(); err != nil || dead != 0 {
				t.Errorf("DeadBytes = %d, %v; want 0", dead, err)
			}
		})
	}
}

// TestEditorAddFSReadsCandidatesOnly: only objects that the edit keeps,
// of the size of a new file, are read to compare them, and only as far as
// the sections decoded hold no more bytes than the files added (a quarter
// of them for objects of other base names than the file's): an edit adding files
// of other sizes decodes no section, nor does one adding a small file
// whose copy would be in a larger section.
//
// The package's object digests are made unusable here, as in a package of
// another writer: with them, only objects whose digest is a file's CRC-32C
// are read (TestEditorAddFSDigests).
func TestEditorAddFSReadsCandidatesOnly(t *testing.T) {
	tree := dupTree()
	tree["small/s1234"] = &fstest.MapFile{Data: noiseOf(5, 1234)} // in a section of 11,240 bytes
	tree["small/t10000"] = &fstest.MapFile{Data: noiseOf(6, 10_000)}
	// Random bytes in compressed sections, which are decoded to compare.
	b := patchDigests(t, pkgBytes(t, tree, WithSectionSize(16<<10), compressAll()), func(d []byte) { d[4] ^= 1 })
	for _, c := range []struct {
		what string
		add  fstest.MapFS
		read bool
	}{
		{"two files of a size no object has", fstest.MapFS{"n/a": {Data: noiseOf(3, 1233)}, "n/b": {Data: noiseOf(4, 1233)}}, false},
		// Objects of other base names get a quarter of the budget.
		{"a file of the size of a/noise.bin", fstest.MapFS{"n/a": {Data: noiseOf(3, 40_000)}}, false},
		{"a file of the size of a/noise.bin and others", fstest.MapFS{"n/a": {Data: noiseOf(3, 40_000)}, "n/b": {Data: noiseOf(3, 120_000)}}, true},
		{"a file of the size and base name of a/noise.bin", fstest.MapFS{"n/noise.bin": {Data: noiseOf(3, 40_000)}}, true},
		{"a file of the size of small/s1234", fstest.MapFS{"n/a": {Data: noiseOf(3, 1234)}}, false},
		// The object a file replaces gets all of it.
		{"small/s1234 and a file as large as its section", fstest.MapFS{"small/s1234": {Data: noiseOf(3, 1234)}, "n/b": {Data: noiseOf(3, 10_006)}}, true},
		{"small/s1234 and a smaller file", fstest.MapFS{"small/s1234": {Data: noiseOf(3, 1234)}, "n/b": {Data: noiseOf(3, 10_005)}}, false},
		{"a file of the size of big/*.raw, replaced before", fstest.MapFS{"big/one.raw": {Data: []byte("1")}, "big/two.raw": {Data: []byte("2")}, "n/a": {Data: noiseOf(3, 160_000)}}, false},
	} {
		p := openBytes(t, b)
		var out bytes.Buffer
		e := NewEditor(&out, p)
		if err := e.AddFS(c.add); err != nil {
			t.Fatal(err)
		}
		if got := CachedSections(p) > 0; got != c.read {
			t.Errorf("adding %s: sections decoded %v, want %v", c.what, got, c.read)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEditorAddFSDigests: with object digests, an object is read only when
// its digest is the CRC-32C of a file of its size, so a file that copies
// none decodes no section, and a copy is found wherever it is.
func TestEditorAddFSDigests(t *testing.T) {
	tree := dupTree()
	tree["small/s1234"] = &fstest.MapFile{Data: noiseOf(5, 1234)} // in a section of 11,240 bytes
	b := pkgBytes(t, tree, WithSectionSize(16<<10))
	for _, c := range []struct {
		what string
		add  fstest.MapFS
		read bool
	}{
		{"files of the sizes of objects, other bytes", fstest.MapFS{"n/noise.bin": {Data: noiseOf(3, 40_000)}, "small/s1234": {Data: noiseOf(3, 1234)}}, false},
		{"a copy of small/s1234 under another name", fstest.MapFS{"n/a": {Data: tree["small/s1234"].Data}}, true},
	} {
		p := openBytes(t, b)
		if p.digests() == nil {
			t.Fatal("no digests")
		}
		var out bytes.Buffer
		e := NewEditor(&out, p)
		if err := e.AddFS(c.add); err != nil {
			t.Fatal(err)
		}
		if got := CachedSections(p) > 0; got != c.read {
			t.Errorf("adding %s: sections decoded %v, want %v", c.what, got, c.read)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		q := openBytes(t, out.Bytes())
		checkTree(t, q, union(tree, c.add))
		if c.read && dataBytes(q) != dataBytes(p) {
			t.Errorf("adding %s: data grew from %d to %d bytes", c.what, dataBytes(p), dataBytes(q))
		}
	}
}

// TestEditorAddFSUnchanged: adding the files of a package again, as they
// are, leaves every data section as it was.
func TestEditorAddFSUnchanged(t *testing.T) {
	tree := dupTree()
	b := pkgBytes(t, tree, WithSectionSize(64<<10))
	out := edited(t, b, func(e *Editor) error { return e.AddFS(tree) }, WithSectionSize(64<<10))
	p := openBytes(t, out)
	if got, want := storedSections(t, p), storedSections(t, openBytes(t, b)); !equalDigests(got, want) {
		t.Errorf("re-adding the same files changed the data sections: %d sections, want %d", len(got), len(want))
	}
	checkTree(t, p, tree)
}

// TestEditorAddFSSharedReplaced: replacing one of several objects that
// share bytes, even with a copy of yet another object, leaves the others
// whole; with Compact too.
func TestEditorAddFSSharedReplaced(t *testing.T) {
	base := dupTree()
	add := fstest.MapFS{
		"a/noise.bin": {Data: base["b/other.bin"].Data}, // shared with b/copy.bin and c/d/again.bin
		"big/one.raw": {Data: noiseOf(5, 1000)},         // shared with big/two.raw
		// Budget to compare a/noise.bin with the object it replaces,
		// and then with b/other.bin (see priorObjects).
		"pad": {Data: noiseOf(6, 160_000)},
	}
	for _, compact := range []bool{false, true} {
		p := checkDedupEdit(t, base, add, func(e *Editor) error {
			if compact {
				e.Compact()
			}
			return nil
		}, 161_000)
		checkTree(t, p, union(base, add))
		if dead, err := p.DeadBytes(); err != nil || dead != 0 {
			t.Errorf("compact %v: DeadBytes = %d, %v; want 0", compact, dead, err)
		}
	}
}

// TestEditorAddFSGoneNotShared: an object removed, or replaced, earlier in
// the same edit is no copy to share: its bytes are going away (the data
// that held only them is dropped), so a file with its bytes is stored.
func TestEditorAddFSGoneNotShared(t *testing.T) {
	base := dupTree()
	big := base["big/one.raw"].Data
	t.Run("removed", func(t *testing.T) {
		add := fstest.MapFS{"n/big.raw": {Data: big}}
		p := checkDedupEdit(t, base, add, func(e *Editor) error { return e.Remove("big") }, 0)
		want := union(base, add)
		delete(want, "big/one.raw")
		delete(want, "big/two.raw")
		checkTree(t, p, want)
	})
	t.Run("replaced", func(t *testing.T) {
		// a/big.raw has the size of big/*.raw, so that they are hashed
		// before they are replaced.
		bigOther := bytes.Clone(big)
		bigOther[150_000] ^= 1
		add := fstest.MapFS{"a/big.raw": {Data: bigOther}, "big/one.raw": {Data: []byte("one")}, "big/two.raw": {Data: []byte("two")}, "n/big.raw": {Data: big}}
		p := checkDedupEdit(t, base, add, nil, 160_006)
		checkTree(t, p, union(base, add))
		// Stored anew, after the bytes of the source's last object.
		start := map[string]uint32{}
		for _, o := range p.Objects() {
			start[o.Name] = o.Start
		}
		if start["n/big.raw"] <= start["small/text.txt"] {
			t.Errorf("n/big.raw starts in section %d, not after the source's data (small/text.txt in %d): it shares bytes of a replaced object", start["n/big.raw"], start["small/text.txt"])
		}
		if dead, err := p.DeadBytes(); err != nil || dead != 0 {
			t.Errorf("DeadBytes = %d, %v; want 0", dead, err)
		}
	})
	// Removed after the file was added as a copy: the bytes stay for it,
	// before those of small/text.txt, where the source had them.
	t.Run("removed after", func(t *testing.T) {
		add := fstest.MapFS{"n/one.raw": {Data: big}}
		out := edited(t, pkgBytes(t, base, rawEdit...), func(e *Editor) error {
			if err := e.AddFS(add); err != nil {
				return err
			}
			return e.Remove("big")
		}, rawEdit...)
		p := openBytes(t, out)
		start := map[string]uint32{}
		for _, o := range p.Objects() {
			start[o.Name] = o.Start
		}
		if start["n/one.raw"] >= start["small/text.txt"] {
			t.Errorf("n/one.raw starts in section %d, after small/text.txt's %d: stored again", start["n/one.raw"], start["small/text.txt"])
		}
		want := union(base, add)
		delete(want, "big/one.raw")
		delete(want, "big/two.raw")
		checkTree(t, p, want)
		if dead, err := p.DeadBytes(); err != nil || dead != 0 {
			t.Errorf("DeadBytes = %d, %v; want 0", dead, err)
		}
	})
}

// equalDigests reports whether a and b are the same digests in order.
func equalDigests(a, b [][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEditorAddFSBudget: the sections decoded to compare hold no more
// bytes than the files added, plus those of the files found already
// there. Re-adding every other file of a package whose 16 KiB sections
// hold four files of 4 KiB: the 10 files (40 KiB) pay for decoding two
// sections and a half, and each file found pays for more, so that the
// first four sections are compared (8 files found) but not the last.
// That is without object digests; with them, every copy is found.
func TestEditorAddFSBudget(t *testing.T) {
	tree, add := fstest.MapFS{}, fstest.MapFS{}
	for i := range 20 {
		name := fmt.Sprintf("f%02d", i)
		tree[name] = &fstest.MapFile{Data: noiseOf(byte(i), 4096)}
		if i%2 == 1 {
			add[name] = tree[name]
		}
	}
	for _, digests := range []bool{false, true} {
		b := pkgBytes(t, tree, rawEdit...)
		if !digests {
			b = patchDigests(t, b, func(d []byte) { d[4] ^= 1 })
		}
		before := dataBytes(openBytes(t, b))
		p := openBytes(t, edited(t, b, func(e *Editor) error { return e.AddFS(add) }, rawEdit...))
		want := map[bool]int{false: 2 * 4096, true: 0}[digests]
		if got := int(dataBytes(p)) - int(before); got != want {
			t.Errorf("digests %v: the data sections grew by %d bytes, want %d", digests, got, want)
		}
		checkTree(t, p, tree)
	}
}

// TestEditorAddFSCopiedTree: a tree copied under another name pays for
// comparing with the objects it copies, whether its files keep their base
// names or not: the bytes added pay for the first sections (a quarter of
// them, with other base names: 1.25 of the 5 sections), and each copy
// found for more, so that every file is found.
func TestEditorAddFSCopiedTree(t *testing.T) {
	for _, rename := range []bool{false, true} {
		tree, add := fstest.MapFS{}, fstest.MapFS{}
		for i := range 20 {
			name := fmt.Sprintf("f%02d", i)
			tree[name] = &fstest.MapFile{Data: noiseOf(byte(i), 4096)}
			if rename {
				add[fmt.Sprintf("copy/g%02d", i)] = tree[name]
			} else {
				add["copy/"+name] = tree[name]
			}
		}
		p := checkDedupEdit(t, tree, add, nil, 0)
		checkTree(t, p, union(tree, add))
	}
}

// TestEditorAddFSCompact: objects found already there keep sharing their
// bytes through Compact, also when the objects they were found as are
// removed.
func TestEditorAddFSCompact(t *testing.T) {
	base := dupTree()
	add := fstest.MapFS{"n/noise.bin": base["a/noise.bin"], "n/one.raw": base["big/one.raw"]}
	out := edited(t, pkgBytes(t, base, rawEdit...), func(e *Editor) error {
		if err := e.AddFS(add); err != nil {
			return err
		}
		for _, n := range []string{"a", "c", "big"} {
			if err := e.Remove(n); err != nil {
				return err
			}
		}
		e.Compact()
		return nil
	}, rawEdit...)
	p := openBytes(t, out)
	want := union(base, add)
	for _, n := range []string{"a/noise.bin", "c/d/again.bin", "big/one.raw", "big/two.raw"} {
		delete(want, n)
	}
	checkTree(t, p, want)
	where := map[string][2]uint32{}
	for _, o := range p.Objects() {
		where[o.Name] = [2]uint32{o.Start, o.Offset}
	}
	if where["n/noise.bin"] != where["b/copy.bin"] {
		t.Errorf("n/noise.bin at %v, b/copy.bin at %v: not shared", where["n/noise.bin"], where["b/copy.bin"])
	}
	if got, want := dataBytes(p), uint64(40_000+40_000+160_000+6); got != want {
		t.Errorf("data sections hold %d bytes, want %d (each distinct file once)", got, want)
	}
	if dead, err := p.DeadBytes(); err != nil || dead != 0 {
		t.Errorf("DeadBytes = %d, %v; want 0", dead, err)
	}
}
