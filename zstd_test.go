package bpx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestZstdSection: a zstd section is written in a VersionZstd file, reads
// back through Data, Open and the checks; the same section in a version-2
// file is refused (a reader of version 2 would take the stream for data).
func TestZstdSection(t *testing.T) {
	data := []byte(strings.Repeat("[unit]\nname=Elvish Fighter\nhitpoints=33\n[/unit]\n", 5000))
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteSection(0x10, SectionOptions{Compression: CompressZstd, Checksum: ChecksumCRC32}, data); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(0x11, SectionOptions{Compression: CompressXZ, Checksum: ChecksumWeak}, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != VersionZstd {
		t.Errorf("version %#x, want %#x", r.Header.Version, VersionZstd)
	}
	s := r.Sections[0]
	if s.Flags&FlagZstd == 0 || !s.Compressed() || s.CSize >= uint32(len(data))/4 {
		t.Fatalf("flags %#x, %d stored bytes of %d", s.Flags, s.CSize, len(data))
	}
	got, err := s.Data()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Data: %v", err)
	}
	rc, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(rc)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Open: %v", err)
	}
	rc.Close()
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}

	// A damaged stream is a format error at its section.
	bad := bytes.Clone(b)
	bad[int(s.Pointer)+int(s.CSize)/2] ^= 0xFF
	r2, err := NewReader(bytes.NewReader(bad), int64(len(bad)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Sections[0].Data(); !errors.Is(err, ErrFormat) && !errors.Is(err, ErrChecksum) {
		t.Errorf("damaged zstd section: %v", err)
	}

	// Version 2 with a zstd section: refused at open.
	v2 := bytes.Clone(b)
	binary.LittleEndian.PutUint32(v2[20:], Version2)
	hb, table := v2[:MainHeaderSize], v2[MainHeaderSize:MainHeaderSize+2*SectionHeaderSize]
	h := UnmarshalMainHeader(hb)
	h.Checksum = 0
	m := h.Marshal()
	h.Checksum = HeaderChecksum(m[:], table)
	m = h.Marshal()
	copy(v2, m[:])
	if _, err := NewReader(bytes.NewReader(v2), int64(len(v2))); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "zstd") {
		t.Errorf("zstd in a version-2 file: %v", err)
	}
	// Writing it as version 1 is refused.
	w1 := NewWriter(io.Discard, WithVersion(Version1))
	w1.WriteSection(0x10, SectionOptions{Compression: CompressZstd}, data)
	if err := w1.Close(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("zstd in version 1: %v", err)
	}
}

// zstdContainer returns a VersionZstd container of one zstd section of
// data and one raw, for the fuzz seeds.
func zstdContainer(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteSection(1, SectionOptions{Compression: CompressZstd, Checksum: ChecksumWeak}, data); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSection(2, SectionOptions{Checksum: ChecksumCRC32}, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestZstdFootprint: a zstd decoder is counted as holding the window its
// frame declares, not the limit: a package's cache, which counts the
// decoders of sections decoded in part, charged 8 MiB for each 1 MiB
// section and evicted them after every object (25 reads of each text
// section of SuperTuxKart's package).
func TestZstdFootprint(t *testing.T) {
	data := []byte(strings.Repeat("<kart name=\"tux\" mass=\"225\"/>\n", 10000)) // 300 KB
	b := zstdContainer(t, data)
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var sr sectionReader
	if err := sr.init(r.Sections[0]); err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	got, want := sr.dec.footprint(), int64(zstdWindow(int64(len(data)))+zstdBlocks)
	if got != want {
		t.Errorf("footprint %d, want the window %d and the blocks", got, want)
	}
}

// zstdFrame returns one zstd frame of data with the given window.
func zstdFrame(t testing.TB, data []byte, window int) []byte {
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(&buf, zstd.WithWindowSize(window), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	enc.Write(data)
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawZstdContainer returns a VersionZstd container of one section of the
// given flags whose stored bytes are stream, decoding to usize bytes of
// weak checksum sum.
func rawZstdContainer(t testing.TB, flags uint8, stream []byte, usize int, sum uint32) []byte {
	t.Helper()
	h := MainHeader{Type: 'Z', SectionNum: 1, Version: VersionZstd, FileSize: uint64(MainHeaderSize + SectionHeaderSize + len(stream))}
	sh := SectionHeader{Pointer: MainHeaderSize + SectionHeaderSize, CSize: uint32(len(stream)), USize: uint32(usize), Checksum: sum, Type: 1, Flags: flags | FlagWeak}
	table := sh.Marshal()
	hb := h.Marshal()
	h.Checksum = HeaderChecksum(hb[:], table[:])
	hb = h.Marshal()
	return append(append(hb[:], table[:]...), stream...)
}

// TestZstdStreams: what other encoders may write. A large window on a
// small section reads through Data as through Open; a skippable frame
// first makes the decoder count the limit; a later frame of a larger
// window than the first is refused on both paths; zstd flagged with xz
// is refused at open (it would decode as zstd, and as xz through a
// block map).
func TestZstdStreams(t *testing.T) {
	data := []byte(strings.Repeat("<kart name=\"tux\" mass=\"225\"/>\n", 14000)) // 420 KB
	open := func(b []byte) *Reader {
		t.Helper()
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	readBoth := func(s *Section) ([]byte, error, []byte, error) {
		d, err := s.Data()
		var o []byte
		rc, oerr := s.Open()
		if oerr == nil {
			o, oerr = io.ReadAll(rc)
			rc.Close()
		}
		return d, err, o, oerr
	}

	big := zstdFrame(t, data, 8<<20)
	d, err, o, oerr := readBoth(open(rawZstdContainer(t, FlagZstd, big, len(data), WeakChecksum(0, data))).Sections[0])
	if err != nil || oerr != nil || !bytes.Equal(d, data) || !bytes.Equal(o, data) {
		t.Errorf("an 8 MiB window on a 420 KB section: Data %v, Open %v", err, oerr)
	}

	skip := append([]byte{0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0}, zstdFrame(t, data, 1<<20)...)
	r := open(rawZstdContainer(t, FlagZstd, skip, len(data), WeakChecksum(0, data)))
	var sr sectionReader
	if err := sr.init(r.Sections[0]); err != nil {
		t.Fatal(err)
	}
	if got := sr.dec.footprint(); got < DefaultMaxXZDictionary {
		t.Errorf("a skippable frame first: counted %d bytes, less than the limit", got)
	}
	sr.Close()

	two := append(zstdFrame(t, data[:1000], 1<<10), zstdFrame(t, data[1000:], 8<<20)...)
	_, err, _, oerr = readBoth(open(rawZstdContainer(t, FlagZstd, two, len(data), WeakChecksum(0, data))).Sections[0])
	if err == nil || oerr == nil {
		t.Errorf("a second frame of a larger window: Data %v, Open %v", err, oerr)
	}

	both := rawZstdContainer(t, FlagZstd|FlagXZ, big, len(data), WeakChecksum(0, data))
	if _, err := NewReader(bytes.NewReader(both), int64(len(both))); !errors.Is(err, ErrFormat) {
		t.Errorf("zstd and xz flags: %v", err)
	}
}
