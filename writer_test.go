package bpx_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// textData returns n bytes of compressible, text-like data.
func textData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	words := strings.Fields("the quick brown fox jumps over the lazy dog texture model shader package section header table")
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(" \n"[r.IntN(8)/7])
	}
	return b.Bytes()[:n]
}

// randomData returns n incompressible bytes.
func randomData(n int, seed uint64) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)}).Read(b)
	return b
}

// writeContainer writes the given sections with a new Writer and returns
// the container.
func writeContainer(t testing.TB, secs []testSection, opts ...bpx.WriterOption) []byte {
	t.Helper()
	return writeTypedContainer(t, 0, [16]byte{}, secs, opts...)
}

// writeTypedContainer is writeContainer for a container of Type typ and
// TypeExt ext.
func writeTypedContainer(t testing.TB, typ uint8, ext [16]byte, secs []testSection, opts ...bpx.WriterOption) []byte {
	t.Helper()
	var out bytes.Buffer
	w := bpx.NewWriter(&out, opts...)
	w.SetType(typ)
	w.SetTypeExt(ext)
	for i, s := range secs {
		sw, err := w.CreateSection(s.typ, s.o)
		if err != nil {
			t.Fatalf("CreateSection %d: %v", i, err)
		}
		// Write in uneven pieces, as a streaming caller would.
		for p := s.data; len(p) > 0; {
			k := min(len(p), 1+len(p)/3)
			if _, err := sw.Write(p[:k]); err != nil {
				t.Fatalf("section %d: Write: %v", i, err)
			}
			p = p[k:]
		}
	}
	if got := w.SectionCount(); got != len(secs) {
		t.Fatalf("SectionCount = %d, want %d", got, len(secs))
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out.Bytes()
}

type testSection struct {
	typ  uint8
	o    bpx.SectionOptions
	data []byte
}

// parsedSection is a section header as decoded by checkLayout, which reads
// the bytes itself rather than trusting the package's reader.
type parsedSection struct {
	ptr                 uint64
	csize, usize, check uint32
	typ, flags          uint8
}

// checkLayout decodes the header and table of b by hand and checks the
// reference layout: signature, FileSize = len(b) = 40+24n+ΣCSize, data
// right after the table in table order without gaps, zero Reserved bytes,
// and the weak header checksum.
func checkLayout(t testing.TB, b []byte) []parsedSection {
	t.Helper()
	if len(b) < 40 || string(b[:3]) != "BPX" {
		t.Fatalf("no BPX header in %d bytes", len(b))
	}
	n := int(binary.LittleEndian.Uint32(b[16:]))
	if len(b) < 40+24*n {
		t.Fatalf("%d sections do not fit in %d bytes", n, len(b))
	}
	var sum uint32
	for i, c := range b[:40+24*n] {
		if i < 4 || i >= 8 {
			sum += uint32(c)
		}
	}
	if got := binary.LittleEndian.Uint32(b[4:]); got != sum {
		t.Errorf("header checksum %#x, computed %#x", got, sum)
	}
	if fs := binary.LittleEndian.Uint64(b[8:]); fs != uint64(len(b)) {
		t.Errorf("FileSize %d, file is %d bytes", fs, len(b))
	}
	secs := make([]parsedSection, n)
	off := uint64(40 + 24*n)
	for i := range secs {
		e := b[40+24*i:]
		s := parsedSection{
			ptr:   binary.LittleEndian.Uint64(e),
			csize: binary.LittleEndian.Uint32(e[8:]),
			usize: binary.LittleEndian.Uint32(e[12:]),
			check: binary.LittleEndian.Uint32(e[16:]),
			typ:   e[20],
			flags: e[21],
		}
		if e[22] != 0 || e[23] != 0 {
			t.Errorf("section %d: reserved bytes %x", i, e[22:24])
		}
		if s.ptr != off {
			t.Errorf("section %d: pointer %d, want running offset %d", i, s.ptr, off)
		}
		if s.flags&3 == 0 && s.csize != s.usize {
			t.Errorf("section %d: raw with CSize %d != USize %d", i, s.csize, s.usize)
		}
		off += uint64(s.csize)
		secs[i] = s
	}
	if off != uint64(len(b)) {
		t.Errorf("sections end at %d, file is %d bytes", off, len(b))
	}
	return secs
}

func openBytes(t testing.TB, b []byte) *bpx.Reader {
	t.Helper()
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	return r
}

func TestEmptyContainerMatchesReference(t *testing.T) {
	got := writeContainer(t, nil)
	// reference-generated/empty_container.bpx: type 0, FileSize 40,
	// version 2, checksum 'B'+'P'+'X'+40+2 = 0x114.
	want := make([]byte, 40)
	copy(want, "BPX")
	want[4], want[5] = 0x14, 0x01
	want[8] = 40
	want[20] = 2
	if !bytes.Equal(got, want) {
		t.Fatalf("empty container\n got %x\nwant %x", got, want)
	}
}

func TestRoundTripEveryCompressionAndChecksum(t *testing.T) {
	payloads := []struct {
		name string
		data []byte
		// shrinks says whether xz and zlib make it smaller.
		shrinks bool
	}{
		{"empty", nil, false},
		{"one byte", []byte{'x'}, false},
		{"43 bytes", []byte("The quick brown fox jumps over the lazy dog"), false},
		{"text 70000", textData(70000, 1), true},
		{"random 5000", randomData(5000, 1), false},
		{"zeros 300000", make([]byte, 300000), true},
	}
	var secs []testSection
	for _, p := range payloads {
		for _, c := range []bpx.Compression{bpx.CompressNone, bpx.CompressZlib, bpx.CompressXZ} {
			for _, k := range []bpx.Checksum{bpx.ChecksumNone, bpx.ChecksumWeak, bpx.ChecksumCRC32, bpx.ChecksumStandardCRC32} {
				secs = append(secs, testSection{typ: uint8(len(secs)), o: bpx.SectionOptions{Compression: c, Checksum: k}, data: p.data})
			}
		}
	}
	b := writeTypedContainer(t, 'Z', [16]byte{1, 2, 3}, secs)
	layout := checkLayout(t, b)
	r := openBytes(t, b)
	if r.Header.Type != 'Z' || r.Header.TypeExt != [16]byte{1, 2, 3} || r.Header.Version != 2 {
		t.Errorf("header %+v", r.Header)
	}
	if len(r.Sections) != len(secs) {
		t.Fatalf("%d sections, want %d", len(r.Sections), len(secs))
	}
	for i, s := range secs {
		sec := r.Sections[i]
		p := payloads[i/12]
		name := fmt.Sprintf("%d %s/%v/%v", i, p.name, s.o.Compression, s.o.Checksum)
		got, err := sec.Data()
		if err != nil || !bytes.Equal(got, s.data) {
			t.Errorf("%s: Data: %v, equal %v", name, err, bytes.Equal(got, s.data))
		}
		if sec.Type != s.typ || layout[i].typ != s.typ {
			t.Errorf("%s: type %d, want %d", name, sec.Type, s.typ)
		}
		var wantFlags uint8
		var wantSum uint32
		switch s.o.Checksum {
		case bpx.ChecksumWeak:
			wantFlags, wantSum = bpx.FlagWeak, bpx.WeakChecksum(0, s.data)
		case bpx.ChecksumCRC32:
			wantFlags, wantSum = bpx.FlagCRC32, bpx.ReferenceCRC32(s.data)
		case bpx.ChecksumStandardCRC32:
			wantFlags, wantSum = bpx.FlagCRC32, bpx.StandardCRC32(s.data)
		}
		if p.shrinks {
			switch s.o.Compression {
			case bpx.CompressZlib:
				wantFlags |= bpx.FlagZlib
			case bpx.CompressXZ:
				wantFlags |= bpx.FlagXZ
			}
		}
		if sec.Flags != wantFlags || sec.Checksum != wantSum {
			t.Errorf("%s: flags %#x checksum %#x, want %#x %#x", name, sec.Flags, sec.Checksum, wantFlags, wantSum)
		}
		if sec.USize != uint32(len(s.data)) {
			t.Errorf("%s: USize %d, want %d", name, sec.USize, len(s.data))
		}
		if sec.Compressed() && sec.CSize >= sec.USize {
			t.Errorf("%s: compressed to %d bytes of %d", name, sec.CSize, sec.USize)
		}
	}
}

func TestFallbackToRawWhenCompressionDoesNotShrink(t *testing.T) {
	data := randomData(100000, 7)
	for _, c := range []bpx.Compression{bpx.CompressZlib, bpx.CompressXZ} {
		b := writeContainer(t, []testSection{{o: bpx.SectionOptions{Compression: c, Checksum: bpx.ChecksumWeak}, data: data}})
		s := checkLayout(t, b)[0]
		if s.flags != bpx.FlagWeak || s.csize != 100000 || s.usize != 100000 {
			t.Errorf("%v: flags %#x CSize %d USize %d, want raw", c, s.flags, s.csize, s.usize)
		}
		if !bytes.Equal(b[s.ptr:], data) {
			t.Errorf("%v: stored bytes differ from the data", c)
		}
	}
}

func TestThreshold(t *testing.T) {
	const th = 1000
	for _, tc := range []struct {
		size       int
		compressed bool
	}{{th - 1, false}, {th, false}, {th + 1, true}, {10 * th, true}} {
		data := textData(tc.size, 3)
		o := bpx.SectionOptions{Compression: bpx.CompressXZ, Threshold: th}
		s := checkLayout(t, writeContainer(t, []testSection{{o: o, data: data}}))[0]
		if got := s.flags&bpx.FlagXZ != 0; got != tc.compressed {
			t.Errorf("size %d, threshold %d: compressed = %v, want %v", tc.size, th, got, tc.compressed)
		}
	}
	// Threshold 0 tries every non-empty section; data that does not
	// shrink still ends up raw.
	s := checkLayout(t, writeContainer(t, []testSection{{o: bpx.SectionOptions{Compression: bpx.CompressZlib}, data: make([]byte, 100)}}))[0]
	if s.flags != bpx.FlagZlib {
		t.Errorf("100 zero bytes with threshold 0: flags %#x, want zlib", s.flags)
	}
}

func TestManySections(t *testing.T) {
	const n = 3000
	secs := make([]testSection, n)
	for i := range secs {
		c := bpx.Compression(i % 3)
		var data []byte
		switch i % 5 {
		case 0: // empty
		case 1:
			data = randomData(i%700, uint64(i))
		default:
			data = textData(i%4000, uint64(i))
		}
		secs[i] = testSection{typ: uint8(i), o: bpx.SectionOptions{Compression: c, Checksum: bpx.Checksum(i % 4)}, data: data}
	}
	b := writeContainer(t, secs, bpx.WithConcurrency(4), bpx.WithMemoryLimit(64<<10), bpx.WithTempDir(t.TempDir()))
	checkLayout(t, b)
	r := openBytes(t, b)
	if len(r.Sections) != n {
		t.Fatalf("%d sections, want %d", len(r.Sections), n)
	}
	for i, s := range r.Sections {
		got, err := s.Data()
		if err != nil || !bytes.Equal(got, secs[i].data) || s.Type != uint8(i) || s.Index != i {
			t.Fatalf("section %d: %v, equal %v, type %d", i, err, bytes.Equal(got, secs[i].data), s.Type)
		}
	}
}

func TestEmptySectionsLikeReference(t *testing.T) {
	// pkg_empty.bpx: two empty weak sections, both pointing at the end
	// of an 88-byte file.
	o := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumWeak, Threshold: bpx.DefaultThreshold}
	b := writeTypedContainer(t, 'P', [16]byte{}, []testSection{{typ: 2, o: o}, {typ: 255, o: o}})
	if len(b) != 88 {
		t.Fatalf("%d bytes, want 88", len(b))
	}
	for i, s := range checkLayout(t, b) {
		if s.ptr != 88 || s.csize != 0 || s.usize != 0 || s.check != 0 || s.flags != bpx.FlagWeak {
			t.Errorf("section %d: %+v", i, s)
		}
	}
}

func TestDeterministicOutput(t *testing.T) {
	var secs []testSection
	for i := range 40 {
		secs = append(secs, testSection{
			typ:  uint8(i),
			o:    bpx.SectionOptions{Compression: bpx.Compression(1 + i%2), Checksum: bpx.ChecksumCRC32},
			data: textData(1000+i*997, uint64(i)),
		})
	}
	a := writeContainer(t, secs, bpx.WithConcurrency(1))
	b := writeContainer(t, secs, bpx.WithConcurrency(8), bpx.WithSpoolThreshold(1500), bpx.WithMemoryLimit(0), bpx.WithTempDir(t.TempDir()))
	c := writeContainer(t, secs, bpx.WithConcurrency(3))
	if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
		t.Fatal("output depends on concurrency or spooling")
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestSpoolToTempFilesAndCleanUp(t *testing.T) {
	dir := t.TempDir()
	big := textData(200000, 9)
	small := textData(500, 10)
	var out bytes.Buffer
	w := bpx.NewWriter(&out, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(4096), bpx.WithMemoryLimit(1000), bpx.WithConcurrency(1))
	for i, d := range [][]byte{big, small, small, randomData(50000, 1), nil, small} {
		sw, err := w.CreateSection(uint8(i), bpx.SectionOptions{Compression: bpx.Compression(i % 3), Checksum: bpx.ChecksumWeak})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sw.Write(d); err != nil {
			t.Fatal(err)
		}
	}
	// The 200000-byte section spilled; the small ones overflowed the
	// 1000-byte memory limit into the shared file.
	if n := len(dirEntries(t, dir)); n < 2 {
		t.Errorf("%d temporary files before Close, want the spilled bodies and the shared file", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left after Close: %v", left)
	}
	checkLayout(t, out.Bytes())
	r := openBytes(t, out.Bytes())
	for i, want := range [][]byte{big, small, small, randomData(50000, 1), nil, small} {
		got, err := r.Sections[i].Data()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("section %d: %v, equal %v", i, err, bytes.Equal(got, want))
		}
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.after {
		return f.after, errors.New("disk full")
	}
	f.after -= len(p)
	return len(p), nil
}

func TestCloseCleansUpOnWriteFailure(t *testing.T) {
	dir := t.TempDir()
	w := bpx.NewWriter(&failingWriter{after: 100}, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(10))
	sw, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressZlib})
	if err != nil {
		t.Fatal(err)
	}
	sw.Write(textData(100000, 1))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close = %v, want the write error", err)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left after a failed Close: %v", left)
	}
}

func TestSpoolFailureIsReported(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	w := bpx.NewWriter(io.Discard, bpx.WithTempDir(missing), bpx.WithSpoolThreshold(10))
	sw, err := w.CreateSection(1, bpx.SectionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Write(make([]byte, 100)); err == nil {
		t.Fatal("spilling into a missing directory succeeded")
	}
	if _, err := w.CreateSection(2, bpx.SectionOptions{}); err == nil {
		t.Error("CreateSection after a failed section succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed section succeeded")
	}
}

func TestWriterMisuse(t *testing.T) {
	w := bpx.NewWriter(io.Discard)
	if _, err := w.CreateSection(1, bpx.SectionOptions{Compression: 9}); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("unknown compression: %v, want ErrUnsupported", err)
	}
	if _, err := w.CreateSection(1, bpx.SectionOptions{Checksum: 9}); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("unknown checksum: %v, want ErrUnsupported", err)
	}
	if _, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, XZDictSize: 100}); !errors.Is(err, bpx.ErrUnsupported) {
		t.Errorf("tiny xz dictionary: %v, want ErrUnsupported", err)
	}
	if w.SectionCount() != 0 {
		t.Errorf("rejected sections were counted: %d", w.SectionCount())
	}
	first, err := w.CreateSection(1, bpx.SectionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreateSection(2, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Write([]byte("late")); err == nil {
		t.Error("write to an ended section succeeded")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	if _, err := w.CreateSection(3, bpx.SectionOptions{}); err == nil {
		t.Error("CreateSection after Close succeeded")
	}
}

func TestSetTypeUntilClose(t *testing.T) {
	var out bytes.Buffer
	w := bpx.NewWriter(&out, bpx.WithVersion(1))
	w.SetType('A')
	sw, _ := w.CreateSection(1, bpx.SectionOptions{})
	sw.Write([]byte("x"))
	w.SetType('P')
	w.SetTypeExt([16]byte{15: 9})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := openBytes(t, out.Bytes())
	if r.Header.Type != 'P' || r.Header.TypeExt[15] != 9 || r.Header.Version != 1 {
		t.Fatalf("header %+v", r.Header)
	}
}

func TestXZDictionaryFitsSection(t *testing.T) {
	for _, tc := range []struct {
		size, override int
		want           byte // LZMA2 dictionary property byte
	}{
		{5000, 0, 1},                       // 5000 → 6 KiB (4 KiB · 1.5)
		{70000, 0, 9},                      // 70000 → 96 KiB
		{1 << 20, 0, 12},                   // capped at 256 KiB
		{70000, 1 << 20, 16},               // explicit 1 MiB
		{3 * 1024, 0, 0},                   // at least 4 KiB
		{bpx.DefaultXZDictSize, 0, 12},     // exactly 256 KiB
		{bpx.DefaultXZDictSize + 1, 0, 12}, // still 256 KiB
	} {
		o := bpx.SectionOptions{Compression: bpx.CompressXZ, XZDictSize: tc.override}
		b := writeContainer(t, []testSection{{o: o, data: textData(tc.size, 4)}})
		s := checkLayout(t, b)[0]
		if s.flags != bpx.FlagXZ {
			t.Fatalf("size %d: not xz (flags %#x)", tc.size, s.flags)
		}
		stream := b[s.ptr : s.ptr+uint64(s.csize)]
		// Stream header 12 bytes, then the block header: size byte,
		// flags, filter ID 0x21, properties size 1, dictionary byte.
		if stream[6] != 0 || stream[7] != 0 {
			t.Errorf("size %d: stream flags %x, want check NONE", tc.size, stream[6:8])
		}
		bh := stream[12:]
		if bh[2] != 0x21 || bh[3] != 1 {
			t.Fatalf("size %d: unexpected block header %x", tc.size, bh[:8])
		}
		if bh[4] != tc.want {
			t.Errorf("size %d override %d: dictionary byte %d, want %d", tc.size, tc.override, bh[4], tc.want)
		}
	}
}

// countingDiscard counts what is written to it.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 72 MiB")
	}
	const secSize = 24 << 20
	dir := t.TempDir()
	var out countingDiscard
	base := heapInUse()
	w := bpx.NewWriter(&out, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(1<<20), bpx.WithMemoryLimit(1<<20), bpx.WithConcurrency(1))
	chunk := textData(64<<10, 5)
	var peak uint64
	for i, c := range []bpx.Compression{bpx.CompressNone, bpx.CompressZlib, bpx.CompressNone} {
		sw, err := w.CreateSection(uint8(i), bpx.SectionOptions{Compression: c, Checksum: bpx.ChecksumCRC32})
		if err != nil {
			t.Fatal(err)
		}
		for range secSize / len(chunk) {
			if _, err := sw.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		peak = max(peak, heapInUse())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Spool threshold and memory limit are 1 MiB each; allow for the
	// compressor's state and the test's own buffers.
	if grew := int64(peak) - int64(base); grew > 16<<20 {
		t.Errorf("heap grew by %d MiB while writing 72 MiB", grew>>20)
	}
	if out.n < 2*secSize {
		t.Errorf("only %d bytes written", out.n)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestOnlyVersions1And2AreWritten(t *testing.T) {
	for _, v := range []uint32{0, 3} {
		dir := t.TempDir()
		var out bytes.Buffer
		w := bpx.NewWriter(&out, bpx.WithVersion(v), bpx.WithTempDir(dir), bpx.WithSpoolThreshold(0))
		if _, err := w.CreateSection(1, bpx.SectionOptions{}); !errors.Is(err, bpx.ErrUnsupported) {
			t.Errorf("version %d: CreateSection = %v, want ErrUnsupported", v, err)
		}
		if err := w.Close(); !errors.Is(err, bpx.ErrUnsupported) {
			t.Errorf("version %d: Close = %v, want ErrUnsupported", v, err)
		}
		if out.Len() != 0 || len(dirEntries(t, dir)) != 0 {
			t.Errorf("version %d: %d bytes written, files %v", v, out.Len(), dirEntries(t, dir))
		}
	}
}

// TestAbort: an aborted Writer writes nothing, leaves no temporary file
// and fails from then on.
func TestAbort(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	w := bpx.NewWriter(&out, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(0))
	if err := w.WriteSection(1, bpx.SectionOptions{Compression: bpx.CompressZlib}, textData(100000, 3)); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("caller gave up")
	w.Abort(cause)
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	if _, err := w.CreateSection(2, bpx.SectionOptions{}); err == nil {
		t.Error("CreateSection after Abort succeeded")
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes written after Abort", out.Len())
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
