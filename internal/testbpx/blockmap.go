package testbpx

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/gobpx/bpx"
)

// BlockMapBombBlock is how many zero bytes each block of
// BlockMapBombPackage's data section decodes to.
const BlockMapBombBlock = 64

// BlockMapBombObjects are the names of BlockMapBombPackage's objects, in
// object table order: each is BlockMapBombObjectSize zero bytes, "first"
// at the start of the data section, "across" over the boundary of two
// blocks a third of the way in, "middle" inside a block halfway, "last"
// at the very end.
var BlockMapBombObjects = []string{"first", "across", "middle", "last"}

// BlockMapBombObjectSize is the size of each of BlockMapBombPackage's
// objects.
const BlockMapBombObjectSize = 10

// BlockMapBombPackage returns a revision 2 package ('P', TypeExt all zero)
// whose one data section is an xz stream of blocks tiny blocks, each
// decoding to BlockMapBombBlock zeros, and whose stream index lists every
// one of them (issue 41, case 7: a map of the blocks costs far more
// memory than the file's bytes, at most 18 bytes of index a block). Its
// sections, in this order: the object table of BlockMapBombObjects, the
// strings of their names, SectionDigests (0xF1) with their CRC-32C
// digests, bound to the object table, so that a reader reads each object
// by itself, and the data section, with the CRC32 of its decoded bytes.
// Every section but the data is raw with a CRC32.
//
// The one block is made by the project's writer from BlockMapBombBlock
// zeros (a stream of one block, LZMA2, no check) and copied blocks times;
// the index, its CRC32 and the stream footer are written here, so the
// file is valid for any decoder. blocks must be at least 3.
func BlockMapBombPackage(t testing.TB, blocks int) []byte {
	t.Helper()
	if blocks < 3 {
		t.Fatalf("BlockMapBombPackage: %d blocks, want 3 or more", blocks)
	}
	header, block, flags, unpadded := oneXZBlock(t, make([]byte, BlockMapBombBlock))
	decoded := int64(blocks) * BlockMapBombBlock
	if decoded > 1<<32-1 {
		t.Fatalf("BlockMapBombPackage: %d blocks decode to more than a section holds", blocks)
	}

	// The index: indicator, count, records, padding to 4 bytes, CRC32.
	rec := binary.AppendUvarint(binary.AppendUvarint(nil, unpadded), BlockMapBombBlock)
	idx := binary.AppendUvarint([]byte{0}, uint64(blocks))
	idx = append(idx, bytes.Repeat(rec, blocks)...)
	idx = append(idx, make([]byte, (4-len(idx)%4)%4)...)
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	foot := binary.LittleEndian.AppendUint32(make([]byte, 4), uint32(len(idx)/4-1))
	foot = append(foot, flags[:]...)
	binary.LittleEndian.PutUint32(foot, crc32.ChecksumIEEE(foot[4:10]))
	foot = append(foot, 'Y', 'Z')

	stream := make([]byte, 0, len(header)+blocks*len(block)+len(idx)+len(foot))
	stream = append(stream, header...)
	for range blocks {
		stream = append(stream, block...)
	}
	stream = append(append(stream, idx...), foot...)

	// The objects, at the offsets BlockMapBombObjects describes.
	offsets := []int64{
		0,
		int64(blocks/3)*BlockMapBombBlock - BlockMapBombObjectSize/2,
		int64(blocks/2)*BlockMapBombBlock + BlockMapBombBlock/3,
		decoded - BlockMapBombObjectSize,
	}
	const dataIndex = 3 // the data section's place in the section table
	var table, names []byte
	digs := LE(uint8(1), uint8(0), uint16(0), uint32(0), uint32(len(offsets)))
	zero := crc32.Checksum(make([]byte, BlockMapBombObjectSize), crc32.MakeTable(crc32.Castagnoli))
	for i, off := range offsets {
		table = append(table, LE(uint64(BlockMapBombObjectSize), uint32(len(names)), uint32(dataIndex), uint32(off))...)
		names = append(append(names, BlockMapBombObjects[i]...), 0)
		digs = binary.LittleEndian.AppendUint32(digs, zero)
	}
	binary.LittleEndian.PutUint32(digs[4:], crc32.Checksum(table, crc32.MakeTable(crc32.Castagnoli)))

	sum := crc32.NewIEEE()
	if _, err := io.CopyN(sum, zeros{}, decoded); err != nil {
		t.Fatal(err)
	}
	secs := []struct {
		typ   uint8
		flags uint8
		usize uint32
		sum   uint32
		body  []byte
	}{
		{2, bpx.FlagCRC32, uint32(len(table)), crc32.ChecksumIEEE(table), table},
		{0xFF, bpx.FlagCRC32, uint32(len(names)), crc32.ChecksumIEEE(names), names},
		{0xF1, bpx.FlagCRC32, uint32(len(digs)), crc32.ChecksumIEEE(digs), digs},
		{1, bpx.FlagXZ | bpx.FlagCRC32, uint32(decoded), sum.Sum32(), stream},
	}
	var tab []byte
	off := uint64(bpx.MainHeaderSize + len(secs)*bpx.SectionHeaderSize)
	for _, s := range secs {
		h := bpx.SectionHeader{Pointer: off, CSize: uint32(len(s.body)), USize: s.usize, Checksum: s.sum, Type: s.typ, Flags: s.flags}
		b := h.Marshal()
		tab = append(tab, b[:]...)
		off += uint64(len(s.body))
	}
	mh := bpx.MainHeader{Type: bpx.TypePackage, FileSize: off, SectionNum: uint32(len(secs)), Version: bpx.Version2}
	hb := mh.Marshal()
	mh.Checksum = bpx.HeaderChecksum(hb[:], tab)
	hb = mh.Marshal()
	out := make([]byte, 0, off)
	out = append(append(out, hb[:]...), tab...)
	for _, s := range secs {
		out = append(out, s.body...)
	}
	return out
}

// oneXZBlock compresses data with the project's writer into an xz section
// of one block and returns that stream's header, the block's stored bytes
// (padding included), the stream flags and the block's unpadded size, as
// the stream's own index records it. It fails unless the stream has no
// check, so that every copy of the block is the same valid block.
func oneXZBlock(t testing.TB, data []byte) (header, block []byte, flags [2]byte, unpadded uint64) {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	if err := w.WriteSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ}, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := io.ReadAll(rd.Sections[0].OpenRaw())
	if err != nil {
		t.Fatal(err)
	}
	n := len(stream)
	copy(flags[:], stream[6:8])
	idx := stream[n-12-(int(binary.LittleEndian.Uint32(stream[n-8:]))+1)*4 : n-12]
	count, k := binary.Uvarint(idx[1:])
	unpadded, k2 := binary.Uvarint(idx[1+k:])
	size, _ := binary.Uvarint(idx[1+k+k2:])
	if count != 1 || size != uint64(len(data)) || flags != [2]byte{} {
		t.Fatalf("the writer's stream of %d bytes: %d blocks, the first of %d bytes, flags %x; want 1, %d, none", len(data), count, size, flags, len(data))
	}
	return stream[:12], stream[12 : 12+(unpadded+3)&^3], flags, unpadded
}
