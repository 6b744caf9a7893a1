package bpx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zlib"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"
)

// rawSection describes a section for buildContainer: the bytes to store and
// the header fields to give them. Pointer is filled in by buildContainer.
type rawSection struct {
	Type   uint8
	Flags  uint8
	Stored []byte
	USize  uint32
	Sum    uint32
}

// buildContainer lays sections out the way the reference does (data right
// after the table, in table order) and computes the header checksum. It is
// independent of the package's Writer on purpose.
func buildContainer(typ uint8, ext [16]byte, secs []rawSection) []byte {
	dataOff := uint64(MainHeaderSize + SectionHeaderSize*len(secs))
	var table, data []byte
	for _, s := range secs {
		h := SectionHeader{Pointer: dataOff + uint64(len(data)), CSize: uint32(len(s.Stored)),
			USize: s.USize, Checksum: s.Sum, Type: s.Type, Flags: s.Flags}
		b := h.Marshal()
		table = append(table, b[:]...)
		data = append(data, s.Stored...)
	}
	mh := MainHeader{Type: typ, FileSize: dataOff + uint64(len(data)), SectionNum: uint32(len(secs)), Version: 2, TypeExt: ext}
	hb := mh.Marshal()
	mh.Checksum = HeaderChecksum(hb[:], table)
	hb = mh.Marshal()
	return append(append(hb[:], table...), data...)
}

// section helpers producing each stored form of payload.
func rawSec(typ uint8, p []byte, check uint8) rawSection {
	s := rawSection{Type: typ, Flags: check, Stored: p, USize: uint32(len(p))}
	s.Sum = sumFor(check, p)
	return s
}

func sumFor(check uint8, p []byte) uint32 {
	switch {
	case check&FlagWeak != 0:
		return WeakChecksum(0, p)
	case check&FlagCRC32 != 0:
		return ReferenceCRC32(p)
	}
	return 0
}

func zlibBytes(t testing.TB, p []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, err := w.Write(p)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func xzBytes(t testing.TB, p []byte) []byte {
	var b bytes.Buffer
	cfg := xz.WriterConfig{DictCap: 256 << 10, CheckSum: xz.None}
	w, err := cfg.NewWriter(&b)
	require.NoError(t, err)
	_, err = w.Write(p)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func open(t testing.TB, b []byte, opts ...Option) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), int64(len(b)), opts...)
	require.NoError(t, err)
	return r
}

var payload = []byte(strings.Repeat("hello world ", 10))

func TestChecksumVectors(t *testing.T) {
	for _, c := range []struct {
		in       string
		ref, std uint32
	}{
		{"", 0, 0},
		{"A", 0xFF00005F, 0xD3D99E8B},
		{"123456789", 0xFF124790, 0xCBF43926},
		{"The quick brown fox jumps over the lazy dog", 0xFF1247DF, 0x414FA339},
	} {
		require.Equal(t, c.ref, ReferenceCRC32([]byte(c.in)), "ref %q", c.in)
		require.Equal(t, c.std, StandardCRC32([]byte(c.in)), "std %q", c.in)
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	require.Equal(t, uint32(0x12AAC4E0), ReferenceCRC32(all))
	// chaining equals one call
	require.Equal(t, ReferenceCRC32(all), UpdateReferenceCRC32(UpdateReferenceCRC32(0, all[:100]), all[100:]))
	require.Equal(t, uint32(255*256/2), WeakChecksum(0, all))
	require.Equal(t, uint32(0x114), HeaderChecksum(buildContainer(0, [16]byte{}, nil), nil))
}

func TestReadEveryCompressionAndChecksum(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB
	for _, p := range [][]byte{nil, payload, big} {
		for _, comp := range []uint8{0, FlagZlib, FlagXZ} {
			for _, check := range []uint8{0, FlagWeak, FlagCRC32, FlagWeak | FlagCRC32} {
				stored := p
				switch comp {
				case FlagZlib:
					stored = zlibBytes(t, p)
				case FlagXZ:
					stored = xzBytes(t, p)
				}
				s := rawSection{Type: 1, Flags: comp | check, Stored: stored, USize: uint32(len(p)), Sum: sumFor(check, p)}
				b := buildContainer('Z', [16]byte{1, 2, 3}, []rawSection{s, rawSec(2, []byte("tail"), FlagWeak)})
				r := open(t, b)
				require.Len(t, r.Sections, 2)
				require.Equal(t, [16]byte{1, 2, 3}, r.Header.TypeExt)
				got, err := r.Sections[0].Data()
				require.NoError(t, err, "comp %x check %x len %d", comp, check, len(p))
				require.Equal(t, len(p), len(got))
				require.True(t, bytes.Equal(p, got))
				rc, err := r.Sections[0].Open()
				require.NoError(t, err)
				got, err = io.ReadAll(rc)
				require.NoError(t, err)
				require.True(t, bytes.Equal(p, got))
				require.NoError(t, rc.Close())
				tail, err := r.Sections[1].Data()
				require.NoError(t, err)
				require.Equal(t, "tail", string(tail))
			}
		}
	}
}

func TestStandardCRCAccepted(t *testing.T) {
	s := rawSection{Type: 1, Flags: FlagCRC32, Stored: payload, USize: uint32(len(payload)), Sum: crc32.ChecksumIEEE(payload)}
	r := open(t, buildContainer('Z', [16]byte{}, []rawSection{s}))
	got, err := r.Sections[0].Data()
	require.NoError(t, err)
	require.Equal(t, payload, got)
}

func TestSectionErrors(t *testing.T) {
	zl := zlibBytes(t, payload)
	xzb := xzBytes(t, payload)
	cases := []struct {
		name string
		sec  rawSection
		opts []Option
		is   []error
	}{
		{"weak mismatch", rawSection{1, FlagWeak, payload, 120, 1}, nil, []error{ErrChecksum}},
		{"crc mismatch", rawSection{1, FlagCRC32, payload, 120, 1}, nil, []error{ErrChecksum}},
		{"weak wins over crc", rawSection{1, FlagWeak | FlagCRC32, payload, 120, ReferenceCRC32(payload)}, nil, []error{ErrChecksum}},
		{"zlib usize too small", rawSection{1, FlagZlib, zl, 50, 0}, nil, []error{ErrFormat}},
		{"zlib usize too large", rawSection{1, FlagZlib, zl, 500, 0}, nil, []error{ErrFormat, io.ErrUnexpectedEOF}},
		{"xz usize too small", rawSection{1, FlagXZ, xzb, 50, 0}, nil, []error{ErrFormat}},
		{"xz usize too large", rawSection{1, FlagXZ, xzb, 500, 0}, nil, []error{ErrFormat, io.ErrUnexpectedEOF}},
		{"zlib truncated", rawSection{1, FlagZlib, zl[:len(zl)-5], 120, 0}, nil, []error{ErrFormat}},
		{"zlib trailing garbage", rawSection{1, FlagZlib, append(append([]byte{}, zl...), 'G'), 120, 0}, nil, []error{ErrFormat}},
		{"xz truncated", rawSection{1, FlagXZ, xzb[:len(xzb)-20], 120, 0}, nil, []error{ErrFormat}},
		{"xz trailing garbage", rawSection{1, FlagXZ, append(append([]byte{}, xzb...), 0, 0, 0, 0, 'G', 'A', 'R', 'B'), 120, 0}, nil, []error{ErrFormat}},
		{"not zlib", rawSection{1, FlagZlib, payload, 120, 0}, nil, []error{ErrFormat}},
		{"not xz", rawSection{1, FlagXZ, payload, 120, 0}, nil, []error{ErrFormat}},
		{"size limit", rawSection{1, 0, payload, 120, 0}, []Option{WithMaxSectionSize(100)}, []error{ErrTooLarge}},
		{"lenient usize still capped", rawSection{1, FlagXZ, xzb, 50, 0}, []Option{IgnoreUSize(), WithMaxSectionSize(100)}, []error{ErrTooLarge}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := open(t, buildContainer('Z', [16]byte{}, []rawSection{c.sec}), c.opts...)
			_, err := r.Sections[0].Data()
			require.Error(t, err)
			for _, want := range c.is {
				require.ErrorIs(t, err, want)
			}
			// the same through Open, and the error is sticky
			rc, err := r.Sections[0].Open()
			if err == nil {
				_, err = io.ReadAll(rc)
				require.Error(t, err)
				_, err2 := rc.Read(make([]byte, 10))
				require.Equal(t, err, err2)
			}
			for _, want := range c.is {
				require.ErrorIs(t, err, want)
			}
		})
	}
}

func TestIgnoreUSizeReadsLikeReference(t *testing.T) {
	for _, usize := range []uint32{50, 500} {
		s := rawSection{1, FlagXZ, xzBytes(t, payload), usize, 0}
		r := open(t, buildContainer('Z', [16]byte{}, []rawSection{s}), IgnoreUSize())
		got, err := r.Sections[0].Data()
		require.NoError(t, err)
		require.Equal(t, payload, got)
	}
}

func TestSkipChecksums(t *testing.T) {
	b := buildContainer('Z', [16]byte{}, []rawSection{{1, FlagWeak, payload, 120, 7}})
	b[4]++ // break the header checksum too
	_, err := NewReader(bytes.NewReader(b), int64(len(b)))
	var ce *ChecksumError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, -1, ce.Section)
	r := open(t, b, SkipChecksums())
	got, err := r.Sections[0].Data()
	require.NoError(t, err)
	require.Equal(t, payload, got)
}

func TestOpenErrors(t *testing.T) {
	good := buildContainer('Z', [16]byte{}, []rawSection{rawSec(1, payload, FlagWeak), rawSec(2, payload, 0)})
	mess := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	setNum := func(b []byte, n uint32) []byte { binary.LittleEndian.PutUint32(b[16:], n); return b }
	cases := []struct {
		name string
		in   []byte
		opts []Option
		is   error
	}{
		{"empty", nil, nil, ErrFormat},
		{"short", good[:30], nil, ErrFormat},
		{"signature", mess(func(b []byte) []byte { b[2] = 'Y'; return b }), nil, ErrFormat},
		{"version 3", mess(func(b []byte) []byte { b[20] = 3; return b }), nil, ErrUnsupported},
		{"table truncated", good[:MainHeaderSize+SectionHeaderSize+10], nil, ErrFormat},
		{"huge section num", mess(func(b []byte) []byte { return setNum(b, 0xFFFFFFFF) }), []Option{SkipChecksums()}, ErrFormat},
		{"section limit", good, []Option{WithMaxSections(1)}, ErrTooLarge},
		{"header checksum", mess(func(b []byte) []byte { b[30]++; return b }), nil, ErrChecksum},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(c.in), int64(len(c.in)), c.opts...)
			require.ErrorIs(t, err, c.is)
		})
	}
	// version 3 opens with AllowAnyVersion (checksum skipped: the version is covered)
	r := open(t, mess(func(b []byte) []byte { b[20] = 3; return b }), AllowAnyVersion(), SkipChecksums())
	require.Equal(t, uint32(3), r.Header.Version)
}

func TestSectionOutsideFile(t *testing.T) {
	b := buildContainer('Z', [16]byte{}, []rawSection{rawSec(1, payload, 0), rawSec(1, payload, 0)})
	cut := b[:len(b)-20] // the second section loses its last 20 bytes
	r := open(t, cut)
	_, err := r.Sections[1].Data()
	require.ErrorIs(t, err, ErrFormat)
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, 1, fe.Section)
	got, err := r.Sections[0].Data() // the intact section still reads
	require.NoError(t, err)
	require.Equal(t, payload, got)
	require.Equal(t, int64(100), r.Sections[1].OpenRaw().Size())

	// a pointer near 2^64 must not overflow the bounds check
	b2 := append([]byte{}, b...)
	binary.LittleEndian.PutUint64(b2[MainHeaderSize:], ^uint64(0)-5)
	r = open(t, b2, SkipChecksums())
	_, err = r.Sections[0].Data()
	require.ErrorIs(t, err, ErrFormat)
}

// shortReaderAt claims a size larger than the data it holds, as a file that
// shrank after its size was taken would.
type shortReaderAt struct{ b []byte }

func (s shortReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(s.b)) {
		return 0, io.EOF
	}
	n := copy(p, s.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestRawSectionShortReadIsErrorNotHang(t *testing.T) {
	b := buildContainer('Z', [16]byte{}, []rawSection{rawSec(1, payload, 0)})
	r, err := NewReader(shortReaderAt{b[:len(b)-20]}, int64(len(b)))
	require.NoError(t, err)
	_, err = r.Sections[0].Data()
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.ErrorIs(t, err, ErrFormat)
}

// patchXZDict rewrites the LZMA2 dictionary property of the first block of
// an .xz stream and fixes the block header CRC32.
func patchXZDict(t *testing.T, stream []byte, props byte) []byte {
	s := append([]byte{}, stream...)
	bh := 12 // block header starts after the 12-byte stream header
	size := (int(s[bh]) + 1) * 4
	hdr := s[bh : bh+size]
	// find filter id 0x21, size-of-props 1, props
	i := bytes.Index(hdr, []byte{0x21, 0x01})
	require.True(t, i > 0, "LZMA2 filter not found")
	hdr[i+2] = props
	binary.LittleEndian.PutUint32(hdr[size-4:], crc32.ChecksumIEEE(hdr[:size-4]))
	return s
}

func TestXZDictionaryLimit(t *testing.T) {
	stream := patchXZDict(t, xzBytes(t, payload), 40) // declares 4 GiB
	r := open(t, buildContainer('Z', [16]byte{}, []rawSection{{1, FlagXZ, stream, 120, 0}}))
	_, err := r.Sections[0].Data()
	require.ErrorIs(t, err, ErrTooLarge)
	// a 1 MiB dictionary is fine by default and refused with a 512 KiB limit
	stream = patchXZDict(t, xzBytes(t, payload), 20)
	r = open(t, buildContainer('Z', [16]byte{}, []rawSection{{1, FlagXZ, stream, 120, 0}}))
	got, err := r.Sections[0].Data()
	require.NoError(t, err)
	require.Equal(t, payload, got)
	r = open(t, buildContainer('Z', [16]byte{}, []rawSection{{1, FlagXZ, stream, 120, 0}}), WithMaxXZDictionary(512<<10))
	_, err = r.Sections[0].Data()
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestLyingUSizeDoesNotAllocate(t *testing.T) {
	s := rawSection{1, FlagZlib, zlibBytes(t, payload), 0xFFFFFFF0, 0}
	r := open(t, buildContainer('Z', [16]byte{}, []rawSection{s}))
	var ms1, ms2 runtimeMem
	ms1.read()
	_, err := r.Sections[0].Data()
	ms2.read()
	if strconv.IntSize == 32 {
		// 4 GiB cannot be read whole on 32-bit platforms: refused first.
		require.ErrorIs(t, err, ErrTooLarge)
	} else {
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	}
	require.Less(t, ms2.total-ms1.total, uint64(4<<20), "Data allocated more than the stream could justify")
}

func TestRawSectionReadAtAndFind(t *testing.T) {
	r := open(t, buildContainer('Z', [16]byte{}, []rawSection{
		rawSec(7, payload, 0), {1, FlagZlib, zlibBytes(t, payload), 120, 0}, rawSec(7, []byte("x"), 0)}))
	p := make([]byte, 5)
	n, err := r.Sections[0].ReadAt(p, 6)
	require.NoError(t, err)
	require.Equal(t, "world", string(p[:n]))
	n, err = r.Sections[0].ReadAt(p, 117)
	require.Equal(t, 3, n)
	require.Equal(t, io.EOF, err)
	_, err = r.Sections[1].ReadAt(p, 0)
	require.ErrorIs(t, err, ErrUnsupported)
	require.Equal(t, 0, r.FindSection(7).Index)
	require.Nil(t, r.FindSection(9))
	require.Len(t, r.SectionsOfType(7), 2)
	require.Equal(t, 2, r.SectionsOfType(7)[1].Index)
}

func TestConcurrentSectionReads(t *testing.T) {
	big := bytes.Repeat([]byte("concurrent "), 5000)
	secs := []rawSection{
		{1, FlagXZ | FlagCRC32, xzBytes(t, big), uint32(len(big)), ReferenceCRC32(big)},
		{1, FlagZlib | FlagWeak, zlibBytes(t, big), uint32(len(big)), WeakChecksum(0, big)},
		rawSec(1, big, FlagCRC32),
	}
	r := open(t, buildContainer('Z', [16]byte{}, secs))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				got, err := r.Sections[(g+i)%3].Data()
				if err != nil || !bytes.Equal(got, big) {
					errs <- errors.New("concurrent read mismatch")
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestAppendDataNoAllocsAfterWarmup(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	big := bytes.Repeat([]byte("reuse "), 20000)
	r := open(t, buildContainer('Z', [16]byte{}, []rawSection{
		{1, FlagZlib | FlagCRC32, zlibBytes(t, big), uint32(len(big)), ReferenceCRC32(big)},
		{1, FlagXZ | FlagWeak, xzBytes(t, big), uint32(len(big)), WeakChecksum(0, big)},
	}))
	buf := make([]byte, 0, len(big))
	for _, s := range r.Sections {
		_, err := s.AppendData(buf) // warm up the pools
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(10, func() {
			out, err := s.AppendData(buf[:0])
			if err != nil || len(out) != len(big) {
				t.Fatal(err)
			}
		})
		// zlib: nothing. xz: the decoder library allocates a few small
		// hash digests per stream (index and block checks); no buffers.
		limit := 0.0
		if s.Flags&FlagXZ != 0 {
			limit = 8
		}
		require.LessOrEqual(t, allocs, limit, "section %d", s.Index)
	}
}

// naiveReferenceCRC32 is the reference SDK's algorithm byte by byte, to
// check the sliced implementation against.
func naiveReferenceCRC32(p []byte) uint32 {
	var t [256]uint32
	for i := range t {
		t[i] = uint32(i) >> 1
		if i&1 != 0 {
			t[i] ^= 0xEDB88320
		}
	}
	crc := ^uint32(0)
	for _, b := range p {
		crc = crc>>8 ^ t[byte(crc)^b]
	}
	return ^crc
}

func TestChecksumsAgainstNaive(t *testing.T) {
	p := make([]byte, 8*refLane)
	for i := range p {
		p[i] = byte(i*7 + i>>3)
	}
	for _, n := range []int{0, 1, 7, 8, 9, 63, 1023, 1024, 1025, 5000, 3 * refLane, 3*refLane + 13, 7*refLane + 5} {
		var weak uint32
		for _, b := range p[:n] {
			weak += uint32(b)
		}
		require.Equal(t, weak, WeakChecksum(0, p[:n]), "weak %d", n)
		require.Equal(t, naiveReferenceCRC32(p[:n]), ReferenceCRC32(p[:n]), "crc %d", n)
	}
	ff := bytes.Repeat([]byte{0xFF}, 100000) // lanes at their maximum
	require.Equal(t, uint32(255*100000), WeakChecksum(0, ff))
}

func TestWriteSection(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.WriteSection(3, SectionOptions{Checksum: ChecksumWeak}, []byte("ab"), nil, []byte("cd")))
	require.NoError(t, w.Close())
	r := open(t, buf.Bytes())
	d, err := r.Sections[0].Data()
	require.NoError(t, err)
	require.Equal(t, "abcd", string(d))
	require.Equal(t, uint8(3), r.Sections[0].Type)
}

// TestFlatXZOnlyForPlausibleStreams: a small xz section is decoded whole
// (stored bytes read into memory), but not when its stored bytes are far
// more than its USize could need: a hostile header must not make the
// reader load a large stream at once. Both read the same.
func TestFlatXZOnlyForPlausibleStreams(t *testing.T) {
	stream := xzBytes(t, payload)
	padded := append(bytes.Clone(stream), make([]byte, 200<<10)...) // stream padding: valid .xz
	r := open(t, buildContainer('Z', [16]byte{}, []rawSection{
		{1, FlagXZ, stream, uint32(len(payload)), 0},
		{1, FlagXZ, padded, uint32(len(payload)), 0},
	}))
	for i, wantFlat := range []bool{true, false} {
		sr := new(sectionReader)
		require.NoError(t, sr.init(r.Sections[i]))
		_, flat := sr.dec.(*flatXZDecoder)
		require.Equal(t, wantFlat, flat, "section %d", i)
		sr.Close()
		got, err := r.Sections[i].Data()
		require.NoError(t, err)
		require.Equal(t, payload, got)
	}
}
