package bpx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os/exec"
	"strings"
	"testing"

	"github.com/gobpx/bpx/internal/xzfixture"
)

// blockContainer is a container of one xz section of payload written in
// blocks of bs bytes, with a CRC32 checksum.
func blockContainer(t testing.TB, payload []byte, bs int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteSection(1, SectionOptions{Compression: CompressXZ, Checksum: ChecksumCRC32, BlockSize: bs}, payload); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBlocks: an xz section written with a block size is a stream of
// blocks that the reader finds through its index and decodes one at a
// time to its part of the data; the section still decodes whole, with
// its checksum, by this package and by xz(1); other sections have no
// blocks.
func TestBlocks(t *testing.T) {
	const bs = 64 << 10
	payload := partialPayload(5*bs + 1000)
	b := blockContainer(t, payload, bs)
	s := open(t, b).Sections[0]
	blocks, err := s.Blocks()
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 6 {
		t.Fatalf("%d blocks, want 6", len(blocks))
	}
	for i, bl := range blocks {
		if bl.Index != i || bl.Offset != int64(i*bs) || bl.Size != int64(min(bs, len(payload)-i*bs)) {
			t.Fatalf("block %d: %+v", i, bl)
		}
		got, err := s.AppendBlock([]byte("x"), bl)
		if err != nil || !bytes.Equal(got[1:], payload[bl.Offset:bl.Offset+bl.Size]) || got[0] != 'x' {
			t.Fatalf("block %d: %d bytes, %v", i, len(got), err)
		}
	}
	if d, err := s.Data(); err != nil || !bytes.Equal(d, payload) {
		t.Fatalf("Data: %d bytes, %v", len(d), err)
	}
	if xz, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command(xz, "-d", "-c")
		cmd.Stdin = bytes.NewReader(b[s.Pointer : s.Pointer+uint64(s.CSize)])
		if out, err := cmd.Output(); err != nil || !bytes.Equal(out, payload) {
			t.Fatalf("xz -d: %d bytes, %v", len(out), err)
		}
	}
	// One block costs little: the whole payload in one block is at most
	// a few percent smaller.
	one := open(t, blockContainer(t, payload, 0)).Sections[0]
	if nb, err := one.Blocks(); err != nil || nb != nil {
		t.Fatalf("a section of one block: %d blocks, %v", len(nb), err)
	}
	if float64(s.CSize) > 1.15*float64(one.CSize) {
		t.Errorf("blocks of 64 KiB: %d bytes, one block %d", s.CSize, one.CSize)
	}
	for name, sec := range partialSections(t, payload) {
		rd := open(t, buildContainer('P', [16]byte{}, []rawSection{sec}))
		if nb, err := rd.Sections[0].Blocks(); err != nil || nb != nil {
			t.Errorf("%s: %d blocks, %v", name, len(nb), err)
		}
	}
}

// TestBlocksDamage: a damaged index or footer, an index whose blocks do
// not hold the section's size, and a damaged block header are ErrFormat
// errors; nothing is allocated for what a footer claims beyond the
// section.
func TestBlocksDamage(t *testing.T) {
	const bs = 16 << 10
	payload := partialPayload(4*bs + 10)
	good := blockContainer(t, payload, bs)
	s := open(t, good).Sections[0]
	end := int(s.Pointer) + int(s.CSize)
	for _, at := range []int{end - 1, end - 8, end - 12 - 3, end - 12 - 8} {
		b := bytes.Clone(good)
		b[at] ^= 0x04
		if _, err := open(t, b).Sections[0].Blocks(); !errors.Is(err, ErrFormat) {
			t.Errorf("byte %d of the stream's end flipped: %v", end-at, err)
		}
	}
	// A section header that says one byte more than the blocks hold.
	sec := rawSection{Type: 1, Flags: s.Flags, Stored: good[s.Pointer:end], USize: s.USize + 1, Sum: s.Checksum}
	if _, err := open(t, buildContainer('P', [16]byte{}, []rawSection{sec})).Sections[0].Blocks(); !errors.Is(err, ErrFormat) {
		t.Errorf("USize one more than the blocks: %v", err)
	}
	// A damaged block header: the map is refused (its data could not
	// be placed), naming the block.
	blocks, err := s.Blocks()
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(good)
	b[int(s.Pointer)+int(blocks[2].xb.Offset)+2] ^= 0x01
	s2 := open(t, b).Sections[0]
	if _, err := s2.Blocks(); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "block 2") {
		t.Errorf("a damaged block header: %v", err)
	}
	if _, err := s2.AppendBlock(nil, blocks[2]); !errors.Is(err, ErrFormat) {
		t.Errorf("a damaged block header: %v", err)
	}
	if _, err := s2.AppendBlock(nil, blocks[1]); err != nil {
		t.Errorf("the block before the damaged one: %v", err)
	}
}

// TestOpenBlock: a block decoded in steps returns a prefix of its data at
// least as long as asked, is verified only at its end, then holds no
// decoder; a damaged block header fails at the first step.
func TestOpenBlock(t *testing.T) {
	const bs = 64 << 10
	payload := partialPayload(3*bs + 100)
	b := blockContainer(t, payload, bs)
	s := open(t, b).Sections[0]
	blocks, err := s.Blocks()
	if err != nil {
		t.Fatal(err)
	}
	bl := blocks[1]
	want := payload[bl.Offset : bl.Offset+bl.Size]
	p, err := s.OpenBlock(make([]byte, 0, bl.Size), bl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.DecodeTo(100)
	if err != nil || len(got) < 100 || len(got) > 100+maxPartialOvershoot || !bytes.Equal(got, want[:len(got)]) || p.Verified() {
		t.Fatalf("DecodeTo(100): %d bytes, %v, verified %v", len(got), err, p.Verified())
	}
	if p.Footprint() == 0 {
		t.Error("no footprint while decoding")
	}
	got, err = p.DecodeTo(bl.Size)
	if err != nil || !bytes.Equal(got, want) || !p.Verified() || p.Footprint() != 0 {
		t.Fatalf("to the end: %d bytes, %v, verified %v, footprint %d", len(got), err, p.Verified(), p.Footprint())
	}
	p.Close()
	bad := bytes.Clone(b)
	bad[int(s.Pointer)+int(bl.xb.Offset)+3] ^= 0x01
	q, err := open(t, bad).Sections[0].OpenBlock(nil, bl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.DecodeTo(10); !errors.Is(err, ErrFormat) {
		t.Fatalf("a damaged block header: %v", err)
	}
	q.Close()
}

// chunkyXZ returns data as an .xz stream (check None) of blocks of bs
// bytes, each coded as LZMA2 stored chunks of one byte: valid, and four
// times the size of its data.
func chunkyXZ(data []byte, bs int) []byte {
	le := binary.LittleEndian
	z := append([]byte{0xFD, '7', 'z', 'X', 'Z', 0, 0, 0}, 0, 0, 0, 0)
	le.PutUint32(z[8:], crc32.ChecksumIEEE(z[6:8]))
	var idx []byte
	n := 0
	for off := 0; off < len(data); off += bs {
		blk := data[off:min(len(data), off+bs)]
		start := len(z)
		hdr := []byte{2, 0, 0x21, 1, 16, 0, 0, 0}
		z = le.AppendUint32(append(z, hdr...), crc32.ChecksumIEEE(hdr))
		for i, c := range blk {
			ctl := byte(2)
			if i == 0 {
				ctl = 1
			}
			z = append(z, ctl, 0, 0, c)
		}
		z = append(z, 0)
		unpadded := len(z) - start
		for len(z)%4 != 0 {
			z = append(z, 0)
		}
		idx = binary.AppendUvarint(binary.AppendUvarint(idx, uint64(unpadded)), uint64(len(blk)))
		n++
	}
	idx = append(binary.AppendUvarint([]byte{0}, uint64(n)), idx...)
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = le.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	z = append(z, idx...)
	f := make([]byte, 12)
	le.PutUint32(f[4:], uint32(len(idx)/4-1))
	le.PutUint32(f, crc32.ChecksumIEEE(f[4:10]))
	copy(f[10:], "YZ")
	return append(z, f...)
}

// TestBlocksStoredBound: blocks whose stored bytes far exceed their data
// (valid, but no encoder's output: AppendBlock would read them all at
// once) give no block map; the section still reads whole.
func TestBlocksStoredBound(t *testing.T) {
	payload := partialPayload(300 << 10)
	for _, c := range []struct {
		bs   int
		want int
	}{{16 << 10, 19}, {100 << 10, 0}} {
		z := chunkyXZ(payload, c.bs)
		sec := rawSection{Type: 1, Flags: FlagXZ | FlagWeak, Stored: z, USize: uint32(len(payload)), Sum: WeakChecksum(0, payload)}
		s := open(t, buildContainer('P', [16]byte{}, []rawSection{sec})).Sections[0]
		blocks, err := s.Blocks()
		if err != nil || len(blocks) != c.want {
			t.Errorf("blocks of %d bytes, 4x stored: %d blocks, %v; want %d", c.bs, len(blocks), err, c.want)
		}
		if d, err := s.Data(); err != nil || !bytes.Equal(d, payload) {
			t.Fatalf("Data: %d bytes, %v", len(d), err)
		}
	}
}

// shiftRecords returns the container b, whose first section is an xz
// stream of blocks, with delta bytes moved from record i to record i+1
// of its index (see xzfixture.ShiftXZRecords).
func shiftRecords(t testing.TB, b []byte, i int, delta uint64) []byte {
	s := open(t, b).Sections[0]
	return xzfixture.ShiftXZRecords(t, b, int(s.Pointer), int(s.Pointer)+int(s.CSize), i, delta)
}

// TestBlocksShiftedRecords (issue 41, case 2): an index that moves bytes
// from one block's record to the next, its CRC32 recomputed, is refused:
// the blocks' LZMA2 chunk headers say how much each decodes to. Every
// block decoded by itself would otherwise hand out data from the wrong
// offset; the whole section fails to decode too.
func TestBlocksShiftedRecords(t *testing.T) {
	const bs = 64 << 10
	payload := partialPayload(4*bs + 1000)
	good := blockContainer(t, payload, bs)
	if _, err := open(t, good).Sections[0].Blocks(); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		lie := shiftRecords(t, good, i, 1024)
		s := open(t, lie).Sections[0]
		blocks, err := s.Blocks()
		if !errors.Is(err, ErrFormat) || blocks != nil {
			t.Errorf("records %d and %d shifted by 1024: Blocks = %d blocks, %v; want ErrFormat", i, i+1, len(blocks), err)
		}
		if _, err := s.Data(); !errors.Is(err, ErrFormat) {
			t.Errorf("records %d and %d shifted: Data: %v", i, i+1, err)
		}
	}
}

// TestBlocksUpTo: a map of more blocks than the caller holds is not made
// (the section decodes from its start), before the index is read.
func TestBlocksUpTo(t *testing.T) {
	const bs = 16 << 10
	s := open(t, blockContainer(t, partialPayload(8*bs), bs)).Sections[0]
	if blocks, err := s.BlocksUpTo(8); err != nil || len(blocks) != 8 {
		t.Fatalf("BlocksUpTo(8) = %d blocks, %v", len(blocks), err)
	}
	if blocks, err := s.BlocksUpTo(7); err != nil || blocks != nil {
		t.Fatalf("BlocksUpTo(7) = %d blocks, %v; want none", len(blocks), err)
	}
}
