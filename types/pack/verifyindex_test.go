package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// indexWithSums writes the package b again with its path index made anew
// with the object digests sums, every other section as it was.
func indexWithSums(t testing.TB, b []byte, sums []uint32) []byte {
	t.Helper()
	files, table, names, _ := indexSource(t, b)
	return replaceSection(t, b, SectionPathIndex, bpx.ChecksumWeak, func([]byte) []byte {
		return makePathIndex(files, table, names, sums, bpx.ChecksumCRC32)
	})
}

// retypeDigests gives the SectionDigests of the package b another type:
// a package without object digests, its sections where they were.
func retypeDigests(t testing.TB, b []byte) []byte {
	t.Helper()
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	b = slices.Clone(b)
	h := bpx.MainHeaderSize + rd.FindSection(SectionDigests).Index*bpx.SectionHeaderSize
	b[h+20] = 0xE0
	end := bpx.MainHeaderSize + len(rd.Sections)*bpx.SectionHeaderSize
	binary.LittleEndian.PutUint32(b[4:], bpx.HeaderChecksum(b[:bpx.MainHeaderSize], b[bpx.MainHeaderSize:end]))
	return b
}

// lyingIndexDigest returns a package with a path index and that package
// with the index's digest of the file victim wrong.
func lyingIndexDigest(t testing.TB) (good, lying []byte, victim string) {
	m, names := sourceTree(300)
	good = pkgBytes(t, m, WithPathIndex(true), WithChunkDigests(false))
	gp := openBytes(t, good)
	victim = names[123]
	obj := slices.IndexFunc(gp.Objects(), func(o Object) bool { return o.Name == victim })
	sums := slices.Clone(gp.digests())
	sums[obj] ^= 1
	return good, indexWithSums(t, good, sums), victim
}

// TestVerifyAllIndexDigests: issue 41 case 6. The path index's entries
// carry their objects' digests, which a reader through the index checks.
// With SectionDigests unusable (stale, malformed, missing) nothing
// compared those with the bytes: one wrong digest made that file fail to
// read while VerifyAll said the package was good. VerifyAll now checks
// every entry's digest against its object, in the pass that decodes each
// section.
func TestVerifyAllIndexDigests(t *testing.T) {
	good, lying, victim := lyingIndexDigest(t)
	for name, b := range map[string][]byte{
		"stale digests":     patchDigests(t, lying, func(d []byte) { d[4] ^= 1 }),
		"malformed digests": patchDigests(t, lying, func(d []byte) { d[0] = 2 }),
		"no digests":        retypeDigests(t, lying),
		"usable digests":    lying,
	} {
		p := openBytes(t, b)
		if p.pidx.Load() == nil {
			t.Fatalf("%s: the index is not used", name)
		}
		if _, err := p.ReadFile(victim); !errors.Is(err, bpx.ErrChecksum) {
			t.Fatalf("%s: ReadFile(%s) through the index: %v, want ErrChecksum", name, victim, err)
		}
		err := openBytes(t, b).VerifyAll()
		if err == nil || !strings.Contains(err.Error(), victim) {
			t.Errorf("%s: VerifyAll: %v; want an error naming %s", name, err, victim)
		}
	}
	// The same package with a true index passes, digests unusable or not.
	for name, b := range map[string][]byte{
		"stale digests": patchDigests(t, good, func(d []byte) { d[4] ^= 1 }),
		"no digests":    retypeDigests(t, good),
	} {
		if err := openBytes(t, b).VerifyAll(); err != nil {
			t.Errorf("%s, a true index: VerifyAll: %v", name, err)
		}
	}
}

// swappedIndex returns a package with a path index and that package with
// an index that gives the file a the object of the file b and b that of
// a, both of which it names: reading a through the index returns b's
// bytes, checked against b's digest.
func swappedIndex(t testing.TB) (good, lying []byte, a, b string) {
	t.Helper()
	m, names := sourceTree(300)
	good = pkgBytes(t, m, WithPathIndex(true), WithChunkDigests(false))
	p := openBytes(t, good)
	table, _ := p.Reader.FindSection(SectionObjectTable).Data()
	strs, _ := p.Reader.FindSection(SectionStrings).Data()
	a, b = names[10], names[20]
	i := slices.IndexFunc(p.Objects(), func(o Object) bool { return o.Name == a })
	j := slices.IndexFunc(p.Objects(), func(o Object) bool { return o.Name == b })
	swapped := slices.Clone(table)
	copy(swapped[i*ObjectEntrySize+8:][:4], table[j*ObjectEntrySize+8:][:4])
	copy(swapped[j*ObjectEntrySize+8:][:4], table[i*ObjectEntrySize+8:][:4])
	files, _ := indexFiles(len(table)/ObjectEntrySize, tableNames(swapped, strs))
	lying = replaceSection(t, good, SectionPathIndex, bpx.ChecksumWeak, func([]byte) []byte {
		return makePathIndex(files, table, strs, p.digests(), bpx.ChecksumCRC32)
	})
	return good, lying, a, b
}

// TestEditRefusesLyingIndex: issue 41. An edit writes a new path index
// from the tables; a source whose index gives other objects than its
// tables (a file read through it is another file's bytes), or other
// digests than SectionDigests, is refused, naming the index, rather than
// edited as if nothing were wrong: so is a repack.
func TestEditRefusesLyingIndex(t *testing.T) {
	good, swapped, a, _ := swappedIndex(t)
	// A reader drops the index at the lying entry (the tables answer);
	// VerifyStructure names it.
	got, err1 := openBytes(t, swapped).ReadFile(a)
	want, err2 := openBytes(t, good).ReadFile(a)
	if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s through the swapped index: %v, %v; want its own bytes", a, err1, err2)
	}
	if err := openBytes(t, swapped).VerifyStructure(); !strings.Contains(fmt.Sprint(err), "path index") {
		t.Fatalf("VerifyStructure of the swapped index: %v", err)
	}
	_, digests, _ := lyingIndexDigest(t)
	for name, src := range map[string][]byte{"objects": swapped, "digests": digests} {
		for what, edit := range map[string]func(e *Editor) error{
			"add":    func(e *Editor) error { return writeObject(e, "new.txt", []byte("new")) },
			"repack": func(e *Editor) error { e.Compact(); return nil },
		} {
			var out bytes.Buffer
			e := NewEditor(&out, openBytes(t, src))
			err := edit(e)
			if err == nil {
				err = e.Close()
			}
			if !errors.Is(err, ErrNotEditable) || !errors.Is(err, bpx.ErrFormat) || !strings.Contains(fmt.Sprint(err), "path index") {
				t.Errorf("%s, %s: %v; want ErrNotEditable and ErrFormat naming the path index", name, what, err)
			}
		}
	}
	if err := openBytes(t, edited(t, good, func(e *Editor) error { return writeObject(e, "new.txt", nil) })).VerifyAll(); err != nil {
		t.Errorf("an edit of the true package: VerifyAll: %v", err)
	}
}
