package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// Issue 41, "one file, one truth": a name reads the same bytes on every
// read path of a package, or fails. These tests craft packages whose
// accelerators (path index, digest memo, object cache) say something
// other than the object tables, as an attacker would, and read them every
// way a user can.

// craftIndex returns b with its path index replaced by one made from its
// tables (entries carrying digests when digests is set) and then changed
// by edit: well formed, bound to the tables, saying what edit makes it say.
func craftIndex(t testing.TB, b []byte, digests bool, edit func(ents []pathEntry)) []byte {
	t.Helper()
	files, table, names, sums := indexSource(t, b)
	ents := make([]pathEntry, len(files))
	for i, f := range files {
		e := table[int(f.obj)*ObjectEntrySize:]
		ents[i] = pathEntry{name: f.name, obj: f.obj, size: binary.LittleEndian.Uint64(e),
			start: binary.LittleEndian.Uint32(e[12:]), offset: binary.LittleEndian.Uint32(e[16:])}
		if sums != nil {
			ents[i].sum = sums[f.obj]
		}
	}
	edit(ents)
	w := pathIndexWriter{digests: digests}
	for i := range ents {
		w.add(&ents[i])
	}
	return withIndex(t, b, w.finish(bindTable(1, table, bpx.ChecksumCRC32), bindTable(2, names, bpx.ChecksumCRC32)))
}

// entryOf returns the entry of ents named name.
func entryOf(t testing.TB, ents []pathEntry, name string) *pathEntry {
	i := slices.IndexFunc(ents, func(e pathEntry) bool { return e.name == name })
	if i < 0 {
		t.Fatalf("no entry %q", name)
	}
	return &ents[i]
}

// noWriterTo hides an ObjectReader's WriterTo, so that io.Copy reads it
// with plain Reads, as http.ServeContent or an audio decoder does.
type noWriterTo struct{ io.Reader }

// readPaths reads name of the package b every way a user can, each on a
// package that first read the names of before (to poison its caches, if
// they can be), and returns what each path that succeeds returns. No path
// may panic.
func readPaths(t *testing.T, b []byte, name string, before []string, opts ...Option) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	fresh := func() *Package {
		p := openBytes(t, b, opts...)
		for _, n := range before {
			p.ReadFile(n)
		}
		return p
	}
	if data, err := fresh().ReadFile(name); err == nil {
		got["ReadFile"] = data
	}
	if f, err := fresh().Open(name); err == nil {
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, noWriterTo{f}); err == nil {
			got["Open+Read"] = buf.Bytes()
		}
		f.Close()
	}
	if f, err := fresh().Open(name); err == nil {
		if fi, err := f.Stat(); err == nil {
			data := make([]byte, fi.Size())
			if _, err := f.(io.ReaderAt).ReadAt(data, 0); err == nil {
				got["Open+ReadAt"] = data
			}
		}
		f.Close()
	}
	p := fresh()
	if err := p.LoadTables(); err == nil {
		for i, o := range p.Objects() {
			if o.Name == name {
				if data, err := p.ReadObject(i); err == nil {
					got["ReadObject"] = data
				}
			}
		}
		if data, err := p.ReadFile(name); err == nil {
			got["ReadFile after LoadTables"] = data
		}
	}
	if data, err := tablesView(t, b).ReadFile(name); err == nil {
		got["tables"] = data
	}
	return got
}

// oneTruth fails unless every path that read name returned want.
func oneTruth(t *testing.T, got map[string][]byte, name string, want []byte) {
	t.Helper()
	for path, data := range got {
		if !bytes.Equal(data, want) {
			t.Errorf("%s of %q: %d bytes, not the tables' %d", path, name, len(data), len(want))
		}
	}
}

// storedPair is a package of a.png (20,000 bytes) and b.png (100,000),
// stored, with a path index and digests.
func storedPair(t *testing.T) ([]byte, fstest.MapFS) {
	m := fstest.MapFS{
		"a.png": {Data: noiseOf(1, 20_000)},
		"b.png": {Data: noiseOf(2, 100_000)},
		"c.txt": {Data: bytes.Repeat([]byte("text "), 2000)},
	}
	return pkgBytes(t, m, WithPathIndex(true)), m
}

// TestIndexEntryOfAnotherObject is case 1: an index entry for a.png with
// a.png's own place, size and CRC-32C but b.png's object number. Read
// a.png first, then b.png: no path may return a.png's bytes for b.png
// (the object cache was keyed by object number), nor panic.
func TestIndexEntryOfAnotherObject(t *testing.T) {
	b, m := storedPair(t)
	lie := craftIndex(t, b, true, func(ents []pathEntry) {
		entryOf(t, ents, "a.png").obj = entryOf(t, ents, "b.png").obj
	})
	for _, cache := range []int64{64 << 20, 64 << 10} {
		for _, name := range []string{"b.png", "a.png"} {
			got := readPaths(t, lie, name, []string{"a.png", "b.png"}, WithCacheSize(cache))
			oneTruth(t, got, name, m[name].Data)
		}
	}
}

// TestIndexSendsNameElsewhere is case 3: an index sending a.png to
// b.png's bytes and c.txt to bytes inside another file. fs.FS must read
// what the tables name, or fail.
func TestIndexSendsNameElsewhere(t *testing.T) {
	b, m := storedPair(t)
	lie := craftIndex(t, b, true, func(ents []pathEntry) {
		a, bb, c := entryOf(t, ents, "a.png"), entryOf(t, ents, "b.png"), entryOf(t, ents, "c.txt")
		name := a.name
		*a = *bb
		a.name = name
		c.start, c.offset, c.size, c.sum = bb.start, bb.offset+500, 69, objectDigest(m["b.png"].Data[500:569])
	})
	for _, name := range []string{"a.png", "c.txt"} {
		oneTruth(t, readPaths(t, lie, name, nil), name, m[name].Data)
		if data, err := openBytes(t, lie).ReadFile(name); err == nil && !bytes.Equal(data, m[name].Data) {
			t.Errorf("ReadFile(%q) follows the lying index", name)
		}
	}
}

// TestIndexEntryUncheckedAfterMemo is case 4: an index entry without
// digests naming object k at another place of the same section. Once
// object k was read (and its digest check remembered), the entry must
// not be returned unchecked.
func TestIndexEntryUncheckedAfterMemo(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 40 {
		m[string(rune('a'+i%26))+"/f"+string(rune('0'+i/26))+".txt"] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte('A' + i)}, 500+i)}
	}
	b := pkgBytes(t, m, WithPathIndex(true))
	var victim pathEntry
	lie := craftIndex(t, b, false, func(ents []pathEntry) {
		k, other := entryOf(t, ents, "a/f0.txt"), entryOf(t, ents, "b/f0.txt")
		if k.start != other.start {
			t.Fatal("the two files lie in different sections")
		}
		victim = *k
		k.offset, k.size = other.offset, other.size
	})
	_ = victim
	got := readPaths(t, lie, "a/f0.txt", []string{"a/f0.txt"})
	oneTruth(t, got, "a/f0.txt", m["a/f0.txt"].Data)
	// Read the object first through its table row, then by name.
	p := openBytes(t, lie)
	if err := p.LoadTables(); err != nil {
		t.Fatal(err)
	}
	for i, o := range p.Objects() {
		if o.Name == "a/f0.txt" {
			if _, err := p.ReadObject(i); err != nil {
				t.Fatal(err)
			}
		}
	}
	q := openBytes(t, lie)
	if _, err := q.ReadFile("b/f0.txt"); err != nil { // same section, cached
		t.Fatal(err)
	}
	if data, err := q.ReadFile("a/f0.txt"); err == nil && !bytes.Equal(data, m["a/f0.txt"].Data) {
		t.Errorf("ReadFile follows an unchecked index entry: %q", data[:min(len(data), 16)])
	}
}

// TestIndexLieNotSilent: whatever the index says, fs.FS, the tables and
// Unpack agree on every name of a package whose index lies, and verify
// names the lie.
func TestIndexLieNotSilent(t *testing.T) {
	b, m := storedPair(t)
	lie := craftIndex(t, b, true, func(ents []pathEntry) {
		a, bb := entryOf(t, ents, "a.png"), entryOf(t, ents, "b.png")
		name := a.name
		*a = *bb
		a.name = name
	})
	p := openBytes(t, lie)
	if err := p.VerifyAll(); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("VerifyAll = %v, want a path index error", err)
	}
	err := fs.WalkDir(p, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, err := p.ReadFile(path); err == nil && !bytes.Equal(data, m[path].Data) {
			t.Errorf("%s: fs.FS reads other bytes than the tables give", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCheckEntryNames checks index entries against the strings before the
// tables are loaded (checkEntry reads the name in pieces of 4 KiB): an
// entry passes when its path is exactly its object's name, and fails when
// the name in the strings is longer, shorter or differs anywhere, at the
// edges of the pieces too.
func TestCheckEntryNames(t *testing.T) {
	var names []string
	for _, n := range []int{1, 4095, 4096, 4097, 8191, 8192, 9000} {
		names = append(names, fmt.Sprintf("d%d/", n)+strings.Repeat("x", n))
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, WithPathIndex(true))
	for _, n := range names {
		ow, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		ow.Write([]byte(n[:4]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, buf.Bytes())
	ix := p.pidx.Load()
	if ix == nil || p.tablesReady.Load() {
		t.Fatal("the index is not used, or the tables are loaded")
	}
	for _, name := range names {
		e, _, found, err := p.indexLookup(ix, name)
		if err != nil || !found {
			t.Fatalf("%.12q…: found %v, %v", name, found, err)
		}
		if err := p.checkEntry(ix, &e); err != nil {
			t.Fatalf("%.12q…: %v", name, err)
		}
		l := len(name)
		bads := []string{name[:l-1], name + "x"}
		for _, k := range []int{0, 4095, 4096, l - 1} {
			if k < l {
				bads = append(bads, name[:k]+"\x01"+name[k+1:])
			}
		}
		for _, bad := range bads {
			e2 := e
			e2.name = bad
			if err := p.checkEntry(ix, &e2); !errors.Is(err, errPathIndex) {
				t.Errorf("%.12q… (%d bytes) as %.12q… (%d bytes): %v, want errPathIndex", name, l, bad, len(bad), err)
			}
		}
	}
}
