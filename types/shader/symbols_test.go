package shader

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// readLog is an io.ReaderAt over a file that records the byte ranges read.
type readLog struct {
	r     io.ReaderAt
	mu    sync.Mutex
	reads [][2]int64
}

func (l *readLog) ReadAt(p []byte, off int64) (int, error) {
	n, err := l.r.ReadAt(p, off)
	l.mu.Lock()
	l.reads = append(l.reads, [2]int64{off, off + int64(n)})
	l.mu.Unlock()
	return n, err
}

// reset forgets the reads so far.
func (l *readLog) reset() {
	l.mu.Lock()
	l.reads = nil
	l.mu.Unlock()
}

// touched returns how many bytes of the section's stored range were read.
func (l *readLog) touched(s *bpx.Section) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	start, end := int64(s.Pointer), int64(s.Pointer)+int64(s.StoredSize())
	var n int64
	for _, rd := range l.reads {
		n += max(0, min(end, rd[1])-max(start, rd[0]))
	}
	return n
}

// openLogged opens file through a readLog, cleared after the opening.
func openLogged(t testing.TB, file []byte) (*bpx.Reader, *readLog) {
	t.Helper()
	l := &readLog{r: bytes.NewReader(file)}
	r, err := bpx.NewReader(l, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	l.reset()
	return r, l
}

// The shader bomb of issue 23: four xz Shader sections of 256 MiB of zeros
// in a file of about 160 KiB (16 MiB with -short). Its symbols read
// without reading a byte of them, in a few kilobytes of heap.
func TestReadSymbolsSkipsShaders(t *testing.T) {
	shaders, size := 4, int64(256<<20)
	if testing.Short() {
		size = 16 << 20 // as telling, and cheaper to build (-race)
	}
	file := testbpx.ShaderBomb(t, shaders, size)
	r, log := openLogged(t, file)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	syms, err := ReadSymbols(r)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) != 2 || syms[0].Name != "a" || syms[1].Name != "b" || syms[0].Register != 3 || syms[1].Type != SymbolConstantBuffer {
		t.Errorf("symbols %+v", syms)
	}
	secs := r.SectionsOfType(SectionShader)
	if len(secs) != shaders {
		t.Fatalf("%d Shader sections, want %d", len(secs), shaders)
	}
	for _, s := range secs {
		if n := log.touched(s); n != 0 {
			t.Errorf("ReadSymbols read %d stored bytes of Shader section %d", n, s.Index)
		}
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("ReadSymbols allocated %d bytes for 2 symbols beside %d shaders of %d bytes", got, shaders, size)
	}
}

// symbolFile is a pack declaring nsym symbols whose SymbolTable holds
// ntab, all named by the first string and without extended data, with the
// given Strings section.
func symbolFile(t *testing.T, nsym, ntab int, strs []byte, o bpx.SectionOptions) []byte {
	t.Helper()
	var tab []byte
	for range ntab {
		tab = append(tab, raw(uint32(0), uint32(noExtendedData), uint16(0), uint8(0), uint8(0xFF))...)
	}
	ext := PackTypeExt{NumSymbols: uint16(nsym), Target: TargetAny, Type: TypeAssembly}.Marshal()
	return testbpx.Container(t, 'S', ext, o, testbpx.Section{Type: SectionStrings, Data: strs},
		testbpx.Section{Type: SectionSymbolTable, Data: tab}, testbpx.Section{Type: SectionShader, Data: []byte{0}})
}

// A Strings or ExtendedData section beyond what ReadSymbols reads for the
// symbol count is refused from its header, before a byte of it is read;
// ReadPack, which reads every section whole anyway, takes it.
func TestReadSymbolsBounds(t *testing.T) {
	xz := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumWeak}
	for _, c := range []struct {
		name string
		nsym int
		size int
		ok   bool
	}{
		{"64 KiB for 1 symbol", 1, 64 << 10, true},
		{"64 KiB + 1 for 1 symbol", 1, 64<<10 + 1, false},
		{"256 bytes per symbol", 1000, 256000, true},
		{"over 256 bytes per symbol", 1000, 256001, false},
	} {
		strs := make([]byte, c.size) // "" at every offset
		file := symbolFile(t, c.nsym, c.nsym, strs, xz)
		r, log := openLogged(t, file)
		syms, err := ReadSymbols(r)
		switch {
		case c.ok && (err != nil || len(syms) != c.nsym):
			t.Errorf("%s: %d symbols, %v", c.name, len(syms), err)
		case !c.ok && !errors.Is(err, bpx.ErrTooLarge):
			t.Errorf("%s: got %v, want ErrTooLarge", c.name, err)
		case !c.ok:
			if n := log.touched(r.Sections[0]); n != 0 {
				t.Errorf("%s: %d bytes of the Strings section read before refusing it", c.name, n)
			}
			if _, err := ReadPack(r); err != nil {
				t.Errorf("%s: ReadPack: %v", c.name, err)
			}
		}
	}

	// Extended data: the same bound, and none of it read with
	// SkipExtendedData.
	tab := raw(uint32(0), uint32(0), uint16(FlagExtendedData), uint8(0), uint8(0xFF))
	ext := PackTypeExt{NumSymbols: 1, Target: TargetAny, Type: TypeAssembly}.Marshal()
	obj := raw(uint8(0))
	big := append(obj, make([]byte, 64<<10)...)
	file := testbpx.Container(t, 'S', ext, xz, testbpx.Section{Type: SectionStrings, Data: []byte("a\x00")},
		testbpx.Section{Type: SectionSymbolTable, Data: tab}, testbpx.Section{Type: SectionExtendedData, Data: big})
	r, log := openLogged(t, file)
	if _, err := ReadSymbols(r); !errors.Is(err, bpx.ErrTooLarge) {
		t.Errorf("extended data of 64 KiB + 1: got %v, want ErrTooLarge", err)
	}
	syms, err := ReadSymbols(r, SkipExtendedData())
	if err != nil || len(syms) != 1 || syms[0].Extended != nil || syms[0].Flags != FlagExtendedData {
		t.Errorf("SkipExtendedData: %+v, %v", syms, err)
	}
	if n := log.touched(r.Sections[2]); n != 0 {
		t.Errorf("%d bytes of the ExtendedData section read", n)
	}
}

// A SymbolTable whose header disagrees with the TypeExt's count is refused
// unread; one whose stream holds more than the header says is read no
// further than one byte past the count's size.
func TestReadSymbolsTableSize(t *testing.T) {
	file := symbolFile(t, 200, 300, []byte("a\x00"), bpx.SectionOptions{Compression: bpx.CompressXZ})
	for _, read := range []func(*bpx.Reader) error{
		func(r *bpx.Reader) error { _, err := ReadSymbols(r); return err },
		func(r *bpx.Reader) error { _, err := ReadPack(r); return err },
	} {
		r, log := openLogged(t, file)
		if !r.Sections[1].Compressed() {
			t.Fatal("the SymbolTable is stored raw")
		}
		checkFormatError(t, "table size", read(r), 1, 2400, "SymbolTable holds 3600 bytes, the TypeExt's 200 symbols need 2400")
		if n := log.touched(r.Sections[1]); n != 0 {
			t.Errorf("%d bytes of the SymbolTable read", n)
		}
	}
	// With IgnoreUSize the stream decides: it is read to 2401 bytes only.
	r, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)), bpx.IgnoreUSize())
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadSymbols(r)
	checkFormatError(t, "table stream", err, 1, 2400, "SymbolTable holds more than the 2400 bytes the TypeExt's 200 symbols need")
}

// The most a pack can make ReadSymbols read: 65535 symbols over a 16 MiB
// Strings section of xz zeros, in a few kilobytes. It costs about the
// section once (read into the names' own string; a copy would be 16 MiB
// more) plus the table and the symbols, and 6 MiB for the decoder: the
// streaming decoder's window holds the 4 MiB dictionary and one LZMA2
// chunk (2 MiB) of output, and a little input.
func TestReadSymbolsMostSymbols(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test: compresses 32 MiB")
	}
	const n = 65535
	limit := symbolDataLimit(n)
	if limit != 16<<20-256 {
		t.Fatalf("limit %d for %d symbols", limit, n)
	}
	xz := bpx.SectionOptions{Compression: bpx.CompressXZ}
	file := symbolFile(t, n, n, make([]byte, limit), xz)
	r := openBytes(t, file)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	syms, err := ReadSymbols(r)
	runtime.ReadMemStats(&after)
	if err != nil || len(syms) != n {
		t.Fatalf("%d symbols, %v", len(syms), err)
	}
	symbols := int64(n) * int64(unsafe.Sizeof(Symbol{}))
	if got, want := int64(after.TotalAlloc-before.TotalAlloc), limit+n*SymbolSize+symbols+6<<20+256<<10; got > want {
		t.Errorf("ReadSymbols allocated %d bytes for a %d-byte file, want at most %d", got, len(file), want)
	}
	if _, err := ReadSymbols(openBytes(t, symbolFile(t, n, n, make([]byte, limit+1), xz))); !errors.Is(err, bpx.ErrTooLarge) {
		t.Errorf("a byte more: %v, want ErrTooLarge", err)
	}
}
