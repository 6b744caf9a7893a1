package pack

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// noiseTree is a tree of size about n bytes: incompressible files (stored
// as they are) and text.
func noiseTree(n int, seed uint64) fstest.MapFS {
	r := mrand.New(mrand.NewPCG(seed, 2))
	m := fstest.MapFS{}
	for i := 0; n > 0; i++ {
		size := 2000 + r.IntN(120_000)
		b := make([]byte, size)
		if i%3 == 0 {
			for j := range b {
				b[j] = "abcdefgh ijklmnop\n"[r.IntN(18)]
			}
		} else {
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
		m[fmt.Sprintf("d%d/f%04d.dat", i%7, i)] = &fstest.MapFile{Data: b}
		n -= size
	}
	return m
}

// chunkDigestsOf parses the chunk digests of the package b, failing the
// test when there are none.
func chunkDigestsOf(t testing.TB, b []byte) (*ChunkDigests, *bpx.Reader) {
	t.Helper()
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadChunkDigests(r)
	if d == nil || err != nil {
		t.Fatalf("chunk digests %v, %v", d, err)
	}
	return d, r
}

// checkChunks checks that every chunk digest is that of the bytes it names,
// cut where the chunking cuts (VerifyChunkDigests), and that the chunks
// cover every section before the digests.
func checkChunks(t testing.TB, b []byte, d *ChunkDigests, r *bpx.Reader) {
	t.Helper()
	if err := openBytes(t, b).VerifyChunkDigests(); err != nil {
		t.Fatal(err)
	}
	at := r.FindSection(SectionChunkDigests).Index
	if d.Start != int64(r.Sections[0].Pointer) {
		t.Fatalf("chunks start at %d, section 0 at %d", d.Start, r.Sections[0].Pointer)
	}
	var covered int64
	for _, c := range d.Chunks {
		if sha256.Sum256(b[c.Off:c.Off+int64(c.Len)]) != c.Digest {
			t.Fatalf("chunk at %d: digest does not match", c.Off)
		}
		covered += int64(c.Len)
	}
	var stored int64
	for _, s := range r.Sections[:at] {
		stored += int64(s.StoredSize())
	}
	if covered != stored {
		t.Fatalf("chunks cover %d bytes, the sections store %d", covered, stored)
	}
}

func TestChunkDigests(t *testing.T) {
	tree := noiseTree(3<<20, 1)
	b := pkgBytes(t, tree)
	d, r := chunkDigestsOf(t, b)
	checkChunks(t, b, d, r)
	if last := r.Sections[len(r.Sections)-1]; last.Type != SectionChunkDigests {
		t.Errorf("chunk digests are not the last section (%#x is)", last.Type)
	}
	if d.Avg != 16<<10 || len(d.Chunks) < 3<<20/(64<<10) {
		t.Errorf("average %d, %d chunks", d.Avg, len(d.Chunks))
	}
	cost := float64(r.FindSection(SectionChunkDigests).StoredSize()) / float64(len(b))
	if cost > 0.005 {
		t.Errorf("chunk digests take %.2f%% of the package, more than 0.5%%", 100*cost)
	}
	p := openBytes(t, b)
	if err := p.VerifyStructure(); err != nil {
		t.Fatal(err)
	}

	// Small packages get none unless asked; WithChunkDigests(false) drops them.
	small := pkgBytes(t, testTree())
	if r, _ := bpx.NewReader(bytes.NewReader(small), int64(len(small))); r.FindSection(SectionChunkDigests) != nil {
		t.Error("a small package got chunk digests")
	}
	d, r = chunkDigestsOf(t, pkgBytes(t, testTree(), WithChunkDigests(true)))
	if len(d.Chunks) == 0 {
		t.Error("WithChunkDigests(true): no chunks")
	}
	none := pkgBytes(t, tree, WithChunkDigests(false))
	if r, _ := bpx.NewReader(bytes.NewReader(none), int64(len(none))); r.FindSection(SectionChunkDigests) != nil {
		t.Error("WithChunkDigests(false): chunk digests")
	}
}

// TestChunkDigestsEdit: an edited package gets digests of its new bytes,
// and a signed one its digests before the signature, which covers them.
func TestChunkDigestsEdit(t *testing.T) {
	b := pkgBytes(t, noiseTree(4<<20, 2))
	var out bytes.Buffer
	e := NewEditor(&out, openBytes(t, b))
	w, _ := e.Create("d0/new.dat")
	w.Write(bytes.Repeat([]byte("new data "), 10000))
	if err := e.Remove("d1/f0001.dat"); err != nil {
		t.Fatal(err)
	}
	hashed := chunkHashed.Load()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// The sections the edit copies keep their chunks: the digests of most
	// of them come from the old package's list, not from hashing.
	if hashed = chunkHashed.Load() - hashed; hashed > int64(out.Len())/4 {
		t.Errorf("the edit hashed %d bytes of a %d-byte package", hashed, out.Len())
	}
	d, r := chunkDigestsOf(t, out.Bytes())
	checkChunks(t, out.Bytes(), d, r)

	// Edited again, the result still has right digests (taken from a
	// list itself partly taken).
	var again bytes.Buffer
	e = NewEditor(&again, openBytes(t, out.Bytes()))
	if err := e.Rename("d0/new.dat", "d6/renamed.dat"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	d, r = chunkDigestsOf(t, again.Bytes())
	checkChunks(t, again.Bytes(), d, r)

	key, err := sign.GenerateKey(rand.Reader, "test")
	if err != nil {
		t.Fatal(err)
	}
	signed := pkgBytes(t, noiseTree(2<<20, 3), WithSigningKey(key))
	d, r = chunkDigestsOf(t, signed)
	checkChunks(t, signed, d, r)
	if n := len(r.Sections); r.Sections[n-1].Type != sign.SectionType || r.Sections[n-2].Type != SectionChunkDigests {
		t.Errorf("last sections %#x %#x, want the digests, then the signature", r.Sections[n-2].Type, r.Sections[n-1].Type)
	}
}

// TestChunkDigestsStable: two packages of trees that differ by one file
// share the chunks of the sections that do not hold it.
func TestChunkDigestsStable(t *testing.T) {
	tree := noiseTree(4<<20, 4)
	a := pkgBytes(t, tree, WithStableSections())
	tree["d3/f0010.dat"] = &fstest.MapFile{Data: bytes.Repeat([]byte("changed "), 5000)}
	bb := pkgBytes(t, tree, WithStableSections())
	da, _ := chunkDigestsOf(t, a)
	db, _ := chunkDigestsOf(t, bb)
	have := map[[32]byte]bool{}
	for _, c := range da.Chunks {
		have[c.Digest] = true
	}
	var fresh, total int64
	for _, c := range db.Chunks {
		total += int64(c.Len)
		if !have[c.Digest] {
			fresh += int64(c.Len)
		}
	}
	if fresh > total/4 {
		t.Errorf("%d of %d stored bytes in chunks the old package lacks, after changing one file of 40 KB", fresh, total)
	}
}

func TestParseChunkDigestsErrors(t *testing.T) {
	b := pkgBytes(t, noiseTree(2<<20, 5))
	_, r := chunkDigestsOf(t, b)
	s := r.FindSection(SectionChunkDigests)
	good, _ := s.Data()
	hdrs := make([]bpx.SectionHeader, len(r.Sections))
	for i, s := range r.Sections {
		hdrs[i] = s.SectionHeader
	}
	le := binary.LittleEndian
	for name, mod := range map[string]func(b []byte) []byte{
		"short":        func(b []byte) []byte { return b[:10] },
		"algorithm":    func(b []byte) []byte { b[0] = 2; return b },
		"reserved":     func(b []byte) []byte { b[2] = 1; return b },
		"avg":          func(b []byte) []byte { le.PutUint32(b[8:], 3000); return b },
		"max":          func(b []byte) []byte { le.PutUint32(b[12:], 1<<30); return b },
		"sections":     func(b []byte) []byte { le.PutUint32(b[16:], uint32(s.Index-1)); return b },
		"count":        func(b []byte) []byte { le.PutUint32(b[20:], le.Uint32(b[20:])+1); return b },
		"huge count":   func(b []byte) []byte { le.PutUint32(b[20:], 1<<31); return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)-1] },
		"chunk length": func(b []byte) []byte { le.PutUint32(b[24:], le.Uint32(b[24:])+1); return b },
		"zero length":  func(b []byte) []byte { le.PutUint32(b[24:], 0); return b },
		"too long":     func(b []byte) []byte { le.PutUint32(b[24:], 1<<20); return b },
		"below min": func(b []byte) []byte {
			// Chunk 0 made one byte shorter than the minimum, chunk 1
			// longer by as much: the same bytes, cut where no chunking
			// cuts.
			min, l0, l1 := le.Uint32(b[4:]), le.Uint32(b[24:]), le.Uint32(b[24+36:])
			le.PutUint32(b[24:], min-1)
			le.PutUint32(b[24+36:], l1+l0-(min-1))
			return b
		},
	} {
		_, err := ParseChunkDigests(mod(bytes.Clone(good)), hdrs, s.Index)
		if !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
	if _, err := ParseChunkDigests(good, hdrs, s.Index); err != nil {
		t.Fatal(err)
	}
	// Sections with a gap between them.
	gap := slices.Clone(hdrs)
	gap[1].Pointer++
	if _, err := ParseChunkDigests(good, gap, s.Index); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("a gap: %v, want ErrFormat", err)
	}
}

func FuzzChunkDigests(f *testing.F) {
	b := pkgBytes(f, noiseTree(1<<20, 6), WithChunkDigests(true))
	r, _ := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	s := r.FindSection(SectionChunkDigests)
	good, _ := s.Data()
	f.Add(good, int64(s.Pointer), uint32(s.Index))
	f.Add(good[:60], int64(0), uint32(1))
	f.Fuzz(func(t *testing.T, data []byte, size int64, at uint32) {
		// Sections of the fuzzed file: as many as at says, up to 16,
		// splitting size bytes evenly.
		n := int(at % 17)
		hdrs := make([]bpx.SectionHeader, n+1)
		per := max(size, 0) / int64(n+1)
		for i := range hdrs {
			hdrs[i] = bpx.SectionHeader{Pointer: uint64(int64(i) * per), CSize: uint32(per), USize: uint32(per)}
		}
		d, err := ParseChunkDigests(data, hdrs, n)
		if err != nil {
			if !errors.Is(err, bpx.ErrFormat) {
				t.Fatalf("error %v does not match ErrFormat", err)
			}
			return
		}
		var stored int64
		for _, h := range hdrs[:n] {
			stored += int64(h.StoredSize())
		}
		off := d.Start
		for _, c := range d.Chunks {
			if c.Off != off || c.Len == 0 || int(c.Len) > d.Max || int(c.Len) < d.Min && off+int64(c.Len) != d.End {
				t.Fatalf("chunk %+v at %d", c, off)
			}
			off += int64(c.Len)
		}
		if off != d.End || d.End-d.Start != stored {
			t.Fatalf("chunks [%d, %d) end at %d, sections store %d", d.Start, d.End, off, stored)
		}
	})
}

// TestDiffDigests: DiffDigests finds what Diff finds, reading no object.
func TestDiffDigests(t *testing.T) {
	tree := noiseTree(1<<20, 8)
	a := openBytes(t, pkgBytes(t, tree))
	changed := fstest.MapFS{}
	for k, v := range tree {
		changed[k] = v
	}
	var names []string
	for k := range tree {
		names = append(names, k)
	}
	slices.Sort(names)
	changed[names[0]] = &fstest.MapFile{Data: []byte("other")}
	b0 := bytes.Clone(tree[names[1]].Data)
	b0[len(b0)/2] ^= 1 // same size, other bytes
	changed[names[1]] = &fstest.MapFile{Data: b0}
	delete(changed, names[2])
	changed["new/file"] = &fstest.MapFile{Data: []byte("new")}
	b := openBytes(t, pkgBytes(t, changed))
	want, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DiffDigests(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 4 {
		t.Errorf("DiffDigests %v, Diff %v", got, want)
	}
}

// TestReadChunkDigests: none is nil, nil; a compressed one is refused.
func TestReadChunkDigests(t *testing.T) {
	small := pkgBytes(t, testTree())
	r, _ := bpx.NewReader(bytes.NewReader(small), int64(len(small)))
	if d, err := ReadChunkDigests(r); d != nil || err != nil {
		t.Errorf("no section: %v, %v", d, err)
	}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.WriteSection(1, bpx.SectionOptions{}, bytes.Repeat([]byte("x"), 1000))
	w.WriteSection(SectionChunkDigests, bpx.SectionOptions{Compression: bpx.CompressXZ}, bytes.Repeat([]byte{0}, 10000))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, _ = bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if _, err := ReadChunkDigests(r); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("compressed: %v, want ErrFormat", err)
	}
}
