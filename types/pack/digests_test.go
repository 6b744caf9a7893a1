package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// checkDigests checks that p has usable object digests, each the CRC-32C
// of its object's bytes.
func checkDigests(t *testing.T, p *Package) {
	t.Helper()
	sums := p.digests()
	if sums == nil {
		t.Fatalf("no usable object digests (%s)", p.dig.why)
	}
	ds := p.Reader.FindSection(SectionDigests)
	if want := digestHeaderSize + 4*len(p.Objects()); int(ds.USize) != want {
		t.Errorf("digest section of %d bytes, want %d", ds.USize, want)
	}
	for i, o := range p.Objects() {
		r, err := p.OpenObject(i)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		if got := crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)); got != sums[i] {
			t.Errorf("%s: digest %#x, CRC-32C of its bytes %#x", o.Name, sums[i], got)
		}
	}
}

// digestTree has identical files (stored once), an empty file, and a file
// that spans several sections of 4 KiB.
func digestTree() fstest.MapFS {
	m := testTree()
	m["copy/a.txt"] = m["dir/a.txt"]
	m["copy/hello.txt"] = m["hello.txt"]
	m["big.txt"] = &fstest.MapFile{Data: bytes.Repeat([]byte("0123456789abcdef"), 2000)}
	return m
}

// TestDigestsWritten: the Writer stores every object's CRC-32C.
func TestDigestsWritten(t *testing.T) {
	for _, c := range []bpx.Compression{bpx.CompressXZ, bpx.CompressZlib, bpx.CompressNone} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			m := digestTree()
			p := openBytes(t, pkgBytes(t, m, WithSectionSize(4096), WithCompression(c)))
			checkDigests(t, p)
			checkTree(t, p, m)
			for _, s := range p.Reader.Sections {
				if err := p.VerifySection(s.Index); err != nil {
					t.Errorf("VerifySection(%d): %v", s.Index, err)
				}
			}
		})
	}
}

// TestEditKeepsDigests: every edit writes the digests of what it keeps and
// of what it adds.
func TestEditKeepsDigests(t *testing.T) {
	src := pkgBytes(t, digestTree(), WithSectionSize(4096))
	for name, edit := range map[string]func(e *Editor) error{
		"add":    func(e *Editor) error { return writeObject(e, "new.txt", []byte("new file")) },
		"remove": func(e *Editor) error { return e.Remove("dir/a.txt") },
		"rename": func(e *Editor) error { return e.Rename("hello.txt", "greeting.txt") },
		"add copies": func(e *Editor) error { // stored once: links to kept objects and to each other
			m := digestTree()
			return e.AddFS(fstest.MapFS{"again/a.txt": m["dir/a.txt"], "again/b.txt": m["dir/a.txt"], "again/n.txt": {Data: []byte("fresh")}, "again/m.txt": {Data: []byte("fresh")}})
		},
		"compact": func(e *Editor) error {
			if err := e.Remove("textures/stone.raw"); err != nil {
				return err
			}
			e.Compact()
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			checkDigests(t, openBytes(t, edited(t, src, edit, WithSectionSize(4096))))
		})
	}
}

// patchDigests changes the stored SectionDigests of the package b with f
// and recomputes the checksums that cover it, as a tool would that writes
// a valid container.
func patchDigests(t *testing.T, b []byte, f func(d []byte)) []byte {
	t.Helper()
	b = bytes.Clone(b)
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	ds := rd.FindSection(SectionDigests)
	if ds == nil || ds.Compressed() {
		t.Fatal("no raw digest section")
	}
	d := b[ds.Pointer : ds.Pointer+uint64(ds.CSize)]
	f(d)
	h := bpx.MainHeaderSize + ds.Index*bpx.SectionHeaderSize
	binary.LittleEndian.PutUint32(b[h+16:], bpx.WeakChecksum(0, d))
	end := bpx.MainHeaderSize + len(rd.Sections)*bpx.SectionHeaderSize
	binary.LittleEndian.PutUint32(b[4:], bpx.HeaderChecksum(b[:bpx.MainHeaderSize], b[bpx.MainHeaderSize:end]))
	return b
}

// TestStaleDigestsIgnored: digests written for another object table (a
// tool that does not know them edited the package) are not used, and the
// package reads as one without them; an edit of it writes none.
func TestStaleDigestsIgnored(t *testing.T) {
	m := digestTree()
	b := patchDigests(t, pkgBytes(t, m, WithSectionSize(4096)), func(d []byte) { d[4] ^= 1 })
	p := openBytes(t, b)
	if p.digests() != nil || !strings.Contains(p.dig.why, "another object table") {
		t.Fatalf("stale digests used (why: %q)", p.dig.why)
	}
	checkTree(t, p, m)
	out := openBytes(t, edited(t, b, func(e *Editor) error { return writeObject(e, "n", []byte("n")) }))
	if out.Reader.FindSection(SectionDigests) != nil {
		t.Error("an edit of a package without usable digests wrote some")
	}
	for _, bad := range []func(d []byte){
		func(d []byte) { d[0] = 2 },                                    // another algorithm
		func(d []byte) { d[8]++ },                                      // another count
		func(d []byte) { d[1] = 1 },                                    // reserved
		func(d []byte) { copy(d[digestHeaderSize:], make([]byte, 4)) }, // a wrong digest: not ignored
	} {
		p := openBytes(t, patchDigests(t, pkgBytes(t, m, WithSectionSize(4096)), bad))
		if p.digests() == nil && p.dig.why == "" {
			t.Error("a malformed digest section ignored without a reason")
		}
	}
}

// TestWrongDigest: an object whose bytes do not match its digest fails to
// read with ErrChecksum, by every path, and VerifySection reports it.
func TestWrongDigest(t *testing.T) {
	m := fstest.MapFS{
		"a": {Data: []byte(strings.Repeat("first object ", 100))},
		"b": {Data: []byte(strings.Repeat("second object ", 100))},
	}
	b := patchDigests(t, pkgBytes(t, m), func(d []byte) { d[digestHeaderSize+4] ^= 0xFF }) // b's digest
	p := openBytes(t, b)
	if got, err := fs.ReadFile(p, "a"); err != nil || !bytes.Equal(got, m["a"].Data) {
		t.Fatalf("a: %v", err)
	}
	if _, err := fs.ReadFile(p, "b"); !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("b with a wrong digest: %v", err)
	}
	r, err := p.OpenObject(1)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.ReadAt(make([]byte, 10), 5); !errors.Is(err, bpx.ErrChecksum) || n != 0 {
		t.Fatalf("ReadAt of b: %d bytes, %v", n, err)
	}
	data := p.Reader.FindSection(SectionData).Index
	if err := p.VerifySection(data); !errors.Is(err, bpx.ErrChecksum) {
		t.Fatalf("VerifySection: %v", err)
	}
}

// sourceTree is many small, compressible files: several per 64 KiB.
func sourceTree(n int) (fstest.MapFS, []string) {
	m := fstest.MapFS{}
	var names []string
	for i := range n {
		name := fmt.Sprintf("src/f%04d.go", i)
		var b strings.Builder
		for j := range 40 + i%30 {
			fmt.Fprintf(&b, "func f%d_%d(x int) int { return x*%d + %d }\n", i, j, i*j, j)
		}
		m[name] = &fstest.MapFile{Data: []byte(b.String())}
		names = append(names, name)
	}
	return m, names
}

// TestReadDecodesOnlyToObject: issue 26 goal 2. Reading an object decodes
// its section only up to the object's end; a later read continues the
// same decoder, and reading the section's last object verifies it whole.
func TestReadDecodesOnlyToObject(t *testing.T) {
	m, names := sourceTree(400)
	for _, c := range []bpx.Compression{bpx.CompressXZ, bpx.CompressZlib} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			p := openBytes(t, pkgBytes(t, m, WithCompression(c)))
			first := p.Objects()[0]
			sec := int(first.Start)
			size := p.secSize[sec]
			got, err := fs.ReadFile(p, first.Name)
			if err != nil || !bytes.Equal(got, m[first.Name].Data) {
				t.Fatalf("%s: %v", first.Name, err)
			}
			e := p.cache.entries[sectionKey(sec)]
			if e == nil || e.part == nil || uint64(len(e.data)) > size/8 {
				t.Fatalf("after reading a %d-byte object at the start, %d of %d bytes decoded", first.Size, len(e.data), size)
			}
			loads := p.cache.loads
			var last string
			for _, o := range p.Objects() {
				if int(o.Start) == sec {
					last = o.Name
				}
			}
			mid := names[10]
			for _, name := range []string{mid, last, names[1]} {
				got, err := fs.ReadFile(p, name)
				if err != nil || !bytes.Equal(got, m[name].Data) {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if p.cache.loads != loads {
				t.Errorf("%d more loads: later reads did not continue the decoder", p.cache.loads-loads)
			}
			if e.part != nil || uint64(len(e.data)) != size {
				t.Errorf("after reading the last object, %d of %d bytes decoded (decoder still open: %v)", len(e.data), size, e.part != nil)
			}
		})
	}
}

// TestDamageAfterObject: a section damaged after an object still gives
// that object (it checks against its digest) but not the objects after
// the damage, and the error stays for them.
func TestDamageAfterObject(t *testing.T) {
	m, names := sourceTree(400)
	b := pkgBytes(t, m, WithCompression(bpx.CompressNone))
	p := openBytes(t, b)
	first := p.Objects()[0]
	s := p.Reader.Sections[first.Start]
	// Change a byte near the end of the first section's data.
	bad := bytes.Clone(b)
	bad[s.Pointer+uint64(s.CSize)-10] ^= 1
	p = openBytes(t, bad)
	if _, err := fs.ReadFile(p, names[0]); err != nil {
		t.Fatalf("object before the damage: %v", err)
	}
	var last string
	for _, o := range p.Objects() {
		if o.Start == first.Start {
			last = o.Name
		}
	}
	for range 2 {
		if _, err := fs.ReadFile(p, last); !errors.Is(err, bpx.ErrChecksum) {
			t.Fatalf("object holding the damage: %v", err)
		}
	}
	if _, err := fs.ReadFile(p, names[0]); err != nil {
		t.Fatalf("object before the damage, again: %v", err)
	}
}

// TestStepwiseConcurrent: readers in random order, sharing sections being
// decoded in steps and a cache small enough to evict them while in use,
// all get their objects' bytes (run with -race).
func TestStepwiseConcurrent(t *testing.T) {
	m, names := sourceTree(600)
	for _, cache := range []int64{64 << 20, 300 << 10} {
		p := openBytes(t, pkgBytes(t, m, WithSectionSize(64<<10)), WithCacheSize(cache))
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(g), 7))
				for range 300 {
					name := names[r.IntN(len(names))]
					got, err := fs.ReadFile(p, name)
					if err == nil && !bytes.Equal(got, m[name].Data) {
						err = fmt.Errorf("%s: wrong bytes", name)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		p.Close()
	}
}
