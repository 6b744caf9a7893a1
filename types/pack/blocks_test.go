package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/xzfixture"
	"github.com/gobpx/bpx/sign"
)

// blockKeys returns the cache keys of p's block entries.
func blockKeys(p *Package) []cacheKey {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	var keys []cacheKey
	for k := range p.cache.entries {
		if k.kind == keyBlock {
			keys = append(keys, k)
		}
	}
	return keys
}

// TestBlockReads: sections larger than the block size are written as
// blocks (the reference model still reads the package); an object of
// such a section is read by decoding only the blocks that hold it, never
// its section from the start, and the next object of the same block
// decodes nothing more; every object reads back.
func TestBlockReads(t *testing.T) {
	tree := distinctText(120, 3000, 7) // 360 KB of text
	const sec, block = 128 << 10, 16 << 10
	b := pkgBytes(t, tree, WithSectionSize(sec), WithBlockSize(block))
	referenceReadable(t, b)
	p := openBytes(t, b, WithCacheSize(4*block)) // sections are read by object
	var multi int
	for _, s := range p.Reader.Sections {
		if s.Type != SectionData {
			continue
		}
		blocks, err := s.Blocks()
		if err != nil {
			t.Fatal(err)
		}
		if int64(s.USize) > block && len(blocks) != int((int64(s.USize)+block-1)/block) {
			t.Fatalf("section %d of %d bytes: %d blocks", s.Index, s.USize, len(blocks))
		}
		if len(blocks) > 1 {
			multi++
		}
	}
	if multi < 2 {
		t.Fatalf("%d sections of several blocks", multi)
	}
	// The last object of the first section, then the one before it.
	first := firstDataSection(t, p)
	var objs []Object
	for _, o := range p.Objects() {
		segs, _ := p.segments(&o)
		if len(segs) == 1 && segs[0].sec == first {
			objs = append(objs, o)
		}
	}
	last, prev := objs[len(objs)-1], objs[len(objs)-2]
	got, err := fs.ReadFile(p, last.Name)
	if err != nil || !bytes.Equal(got, tree[last.Name].Data) {
		t.Fatalf("%s: %d bytes, %v", last.Name, len(got), err)
	}
	if n := p.streams.opened.Load(); n != 0 {
		t.Fatalf("reading the last object decoded its section from the start (%d decoders)", n)
	}
	keys := blockKeys(p)
	if len(keys) == 0 || len(keys) > 2 {
		t.Fatalf("reading a %d-byte object decoded %d blocks", last.Size, len(keys))
	}
	loads := p.cache.loads
	if _, err := fs.ReadFile(p, prev.Name); err != nil {
		t.Fatal(err)
	}
	if k := len(blockKeys(p)); k > len(keys)+1 || p.cache.loads > loads+2 {
		t.Errorf("the object before it: %d blocks now, %d loads more", k, p.cache.loads-loads)
	}
	// The first object of the section: its block is decoded only as far
	// as the object's end.
	q := openBytes(t, b, WithCacheSize(4*block))
	if _, err := fs.ReadFile(q, objs[0].Name); err != nil {
		t.Fatal(err)
	}
	q.cache.mu.Lock()
	e := q.cache.entries[blockKey(first, 0)]
	q.cache.mu.Unlock()
	if e == nil {
		t.Fatal("no entry for block 0")
	}
	if len(e.data) >= block || e.part == nil {
		t.Errorf("reading a %d-byte object at a block's start decoded the block to %d bytes", objs[0].Size, len(e.data))
	}
	checkTree(t, openBytes(t, b, WithCacheSize(4*block)), tree)
	checkTree(t, openBytes(t, b), tree) // sections cached whole
	// Sections of the block size or smaller are one block: the default
	// writes what it wrote before blocks.
	if small, one := pkgBytes(t, tree, WithSectionSize(block)), pkgBytes(t, tree, WithSectionSize(block), WithBlockSize(0)); !bytes.Equal(small, one) {
		t.Error("sections of the block size differ from sections of one block")
	}
	if err := NewWriter(new(bytes.Buffer), WithBlockSize(100)).Close(); err == nil {
		t.Error("WithBlockSize(100) accepted")
	}
}

// TestBlockDamage: a byte changed inside a block makes the objects of that
// block fail to read (a decode error or a wrong digest), never return
// other bytes; objects of the other blocks still read.
func TestBlockDamage(t *testing.T) {
	tree := distinctText(60, 3000, 8)
	const sec, block = 128 << 10, 16 << 10
	b := pkgBytes(t, tree, WithSectionSize(sec), WithBlockSize(block))
	p := openBytes(t, b)
	s := p.Reader.Sections[firstDataSection(t, p)]
	blocks, err := s.Blocks()
	if err != nil || len(blocks) < 3 {
		t.Fatalf("%d blocks, %v", len(blocks), err)
	}
	// A byte in the middle of block 1's stored bytes.
	lo, hi := blockStored(t, b, s, 1)
	bad := bytes.Clone(b)
	bad[(lo+hi)/2] ^= 0x20
	q := openBytes(t, bad, WithCacheSize(4*block))
	var failed, good int
	for _, o := range q.Objects() {
		segs, _ := q.segments(&o)
		if len(segs) != 1 || segs[0].sec != s.Index {
			continue
		}
		got, err := fs.ReadFile(q, o.Name)
		inBlock1 := int64(segs[0].off) < blocks[1].Offset+blocks[1].Size && int64(segs[0].off+segs[0].n) > blocks[1].Offset
		switch {
		case err == nil && !bytes.Equal(got, tree[o.Name].Data):
			t.Fatalf("%s: wrong bytes, no error", o.Name)
		case err != nil && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrFormat):
			t.Fatalf("%s: %v", o.Name, err)
		case err != nil && !inBlock1:
			t.Fatalf("%s, outside the damaged block: %v", o.Name, err)
		case err != nil:
			failed++
		default:
			good++
		}
	}
	if failed == 0 || good == 0 {
		t.Fatalf("%d objects failed, %d read", failed, good)
	}
}

// blockStored returns the file offsets of the data of block i of section
// s (after its 12-byte header, up to the next block's header). Blocks
// follow the stream header in order, each with the same header; their
// stored sizes are not exported.
func blockStored(t *testing.T, b []byte, s *bpx.Section, i int) (int, int) {
	t.Helper()
	hdr := b[int(s.Pointer)+12:]
	for k := 0; k < i; k++ {
		next := bytes.Index(hdr[1:], hdr[:12]) // every block header is the same 12 bytes
		if next < 0 {
			t.Fatal("block header not found")
		}
		hdr = hdr[next+1:]
	}
	lo := len(b) - len(hdr)
	next := bytes.Index(hdr[1:], hdr[:12])
	return lo + 12, lo + 1 + next
}

// firstDataSection returns the index of the section that holds the first
// object of p.
func firstDataSection(t *testing.T, p *Package) int {
	t.Helper()
	o := p.Objects()[0]
	segs, err := p.segments(&o)
	if err != nil {
		t.Fatal(err)
	}
	return segs[0].sec
}

// TestBlockReadsSigned: in a package read with WithTrustedKeys, an object
// of a section of blocks too large for the cache is read from its blocks
// (whose stored bytes the signature checks), not streamed from the
// section's start; a changed byte in a block is ErrTampered.
func TestBlockReadsSigned(t *testing.T) {
	k := testKey(t, 3, "k")
	// Hex text: it compresses to about half, so that the package spans
	// several signed chunks of 64 KiB and the last section's blocks lie
	// outside the tables' chunk.
	tree := fstest.MapFS{}
	rnd := rand.New(rand.NewPCG(9, 9))
	for i := range 80 {
		var b []byte
		for len(b) < 3000 {
			b = fmt.Appendf(b, "%016x\n", rnd.Uint64())
		}
		tree[fmt.Sprintf("h%02d", i)] = &fstest.MapFile{Data: b[:3000]}
	}
	const sec, block = 128 << 10, 16 << 10
	b := pkgBytes(t, tree, WithSectionSize(sec), WithBlockSize(block), WithSigningKey(k))
	p := openBytes(t, b, WithTrustedKeys(ring(k)), WithCacheSize(4*block))
	checkTree(t, p, tree)
	if n := p.streams.opened.Load(); n != 0 {
		t.Fatalf("%d sections streamed from their start", n)
	}
	if len(blockKeys(p)) == 0 {
		t.Fatal("no block decoded")
	}
	// A block of the last section, in a signed chunk of its own (the
	// first chunk holds the tables).
	objs := p.Objects()
	last := objs[len(objs)-1]
	segs, err := p.segments(&last)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Reader.Sections[segs[0].sec]
	lo, hi := blockStored(t, b, s, 1)
	bad := bytes.Clone(b)
	bad[(lo+hi)/2] ^= 0x20
	q := openBytes(t, bad, WithTrustedKeys(ring(k)), WithCacheSize(4*block))
	var tampered int
	for name := range tree {
		got, err := fs.ReadFile(q, name)
		switch {
		case err == nil && !bytes.Equal(got, tree[name].Data):
			t.Fatalf("%s: wrong bytes, no error", name)
		case err != nil && !errors.Is(err, sign.ErrTampered):
			t.Fatalf("%s: %v", name, err)
		case err != nil:
			tampered++
		}
	}
	if tampered == 0 {
		t.Fatal("no object of the changed block failed")
	}
}

// TestBlockMapsInBudget (issue 41, case 7): a section's block map is kept
// in the section cache, its bytes counted in the budget, not beside it.
func TestBlockMapsInBudget(t *testing.T) {
	tree := distinctText(120, 3000, 7)
	const sec, block = 128 << 10, 16 << 10
	b := pkgBytes(t, tree, WithSectionSize(sec), WithBlockSize(block))
	p := openBytes(t, b, WithCacheSize(4*block))
	checkTree(t, p, tree)
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	maps := 0
	for k, e := range p.cache.entries {
		if k.kind != keyBlockMap {
			continue
		}
		blocks, _ := e.val.([]bpx.Block)
		if len(blocks) > 0 {
			maps++
		}
		if want := int64(len(blocks)) * blockMapEntrySize; e.valSize < want || e.charge < e.valSize {
			t.Errorf("section %d: a map of %d blocks counts %d bytes (charge %d)", k.sec, len(blocks), e.valSize, e.charge)
		}
	}
	if maps == 0 {
		t.Fatal("no block map in the cache")
	}
}

// TestBlockMapShiftedRecords (issue 41, case 2): an xz index that moves
// 1,024 bytes from one block's record to the next (the same total, its
// CRC32 recomputed; data, section checksum and header unchanged) must not
// shift what a name reads: every path, at any cache size, reads the
// objects' own bytes or fails.
func TestBlockMapShiftedRecords(t *testing.T) {
	tree := distinctText(100, 3000, 11)
	const sec, block = 256 << 10, 64 << 10 // sizes whose varints keep their length
	b := pkgBytes(t, tree, WithSectionSize(sec), WithBlockSize(block))
	// The digests of block 1's objects forged to match the bytes a reader
	// trusting the shifted index reads for them (block 1 then seems to
	// start 1,024 bytes earlier, so its bytes are read 1,024 bytes later),
	// as an attacker who writes the file can.
	p := openBytes(t, b)
	var target *bpx.Section
	for _, s := range p.Reader.Sections {
		if blocks, err := s.Blocks(); err == nil && s.Type == SectionData && len(blocks) >= 3 {
			target = s
			break
		}
	}
	if target == nil {
		t.Fatal("no data section of three blocks")
	}
	data, err := target.Data()
	if err != nil {
		t.Fatal(err)
	}
	forged := 0
	b = replaceSection(t, b, SectionDigests, bpx.ChecksumCRC32, func(d []byte) []byte {
		for i, o := range p.Objects() {
			if int(o.Start) == target.Index && o.Offset >= block && uint64(o.Offset)+1024+o.Size <= 2*block {
				at := uint64(o.Offset) + 1024
				binary.LittleEndian.PutUint32(d[digestHeaderSize+4*i:], objectDigest(data[at:at+o.Size]))
				forged++
			}
		}
		return d
	})
	if forged == 0 {
		t.Fatal("no object in block 1")
	}
	s := openBytes(t, b).Reader.Sections[target.Index]
	lie := xzfixture.ShiftXZRecords(t, b, int(s.Pointer), int(s.Pointer)+int(s.CSize), 0, 1024)
	for _, cache := range []int64{8 * block, 64 << 20} { // blocks read alone; the section cached
		p := openBytes(t, lie, WithCacheSize(cache))
		for name, f := range tree {
			if got, err := p.ReadFile(name); err == nil && !bytes.Equal(got, f.Data) {
				t.Fatalf("cache %d: ReadFile(%s) reads other bytes, no error", cache, name)
			}
			if r, err := p.Open(name); err == nil {
				var buf bytes.Buffer
				if _, err := io.Copy(&buf, struct{ io.Reader }{r}); err == nil && !bytes.Equal(buf.Bytes(), f.Data) {
					t.Fatalf("cache %d: Open(%s) + Read reads other bytes, no error", cache, name)
				}
				r.Close()
			}
		}
	}
	if err := openBytes(t, lie).VerifyAll(); !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("VerifyAll = %v, want ErrFormat", err)
	}
}
