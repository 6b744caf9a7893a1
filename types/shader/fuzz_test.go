package shader

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// FuzzRead checks that Detect, ReadPack and ReadSpec never panic on any
// container, that their errors are typed with container-level offsets
// inside the input, and that whatever reads writes back and reads equal.
func FuzzRead(f *testing.F) {
	addPackSeeds(f)
	f.Add(container(f, 'S', specExt, specSections()...))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)), bpx.WithMaxSectionSize(1<<20), bpx.SkipChecksums())
		if err != nil {
			return
		}
		check := func(err error) { checkReadError(t, err, len(b)) }
		if _, err := Detect(r); err != nil {
			check(err)
		}
		_ = DescribeTypeExt(r.Header.TypeExt)
		if p, err := ReadPack(r); err != nil {
			check(err)
		} else {
			var buf bytes.Buffer
			if err := EncodePack(&buf, p); err != nil {
				t.Fatalf("read pack does not encode: %v", err)
			}
			again, err := ReadPack(openBytes(t, buf.Bytes()))
			if err != nil {
				t.Fatalf("re-encoded pack does not read: %v", err)
			}
			checkPack(t, again, p)
		}
		if p, err := ReadSpec(r); err != nil {
			check(err)
		} else {
			var buf bytes.Buffer
			if err := EncodeSpec(&buf, p, bpx.SectionOptions{}); err != nil {
				t.Fatalf("read spec pack does not encode: %v", err)
			}
			again, err := ReadSpec(openBytes(t, buf.Bytes()))
			if err != nil {
				t.Fatalf("re-encoded spec pack does not read: %v", err)
			}
			if !reflect.DeepEqual(again, p) {
				t.Fatal("spec pack changed through EncodeSpec and ReadSpec")
			}
		}
	})
}

// FuzzReadSymbols checks that ReadSymbols never panics, reads no byte
// outside the first SymbolTable, Strings and ExtendedData sections (none
// of a Shader section), fails only with typed errors, and agrees with
// ReadPack: the same symbols when both succeed, and only ErrTooLarge (its
// bound) where ReadPack succeeds; SkipExtendedData gives the same symbols
// without their extended data.
func FuzzReadSymbols(f *testing.F) {
	addPackSeeds(f)
	f.Add(testbpx.ShaderBomb(f, 2, 64<<10))
	f.Add(container(f, 'S', PackTypeExt{NumSymbols: 1, Target: TargetAny, Type: TypePipeline}.Marshal(),
		sec{0xFF, make([]byte, 64<<10+1)}, sec{2, raw(uint32(0), uint32(0), uint16(0), uint8(2), uint8(0xFF))}))
	f.Fuzz(func(t *testing.T, b []byte) {
		log := &readLog{r: bytes.NewReader(b)}
		r, err := bpx.NewReader(log, int64(len(b)), bpx.WithMaxSectionSize(1<<20), bpx.SkipChecksums())
		if err != nil {
			return
		}
		log.reset()
		syms, err := ReadSymbols(r)
		var allowed []*bpx.Section
		for _, typ := range []uint8{SectionSymbolTable, SectionStrings, SectionExtendedData} {
			if s := r.FindSection(typ); s != nil {
				allowed = append(allowed, s)
			}
		}
		for _, rd := range log.reads {
			if !slices.ContainsFunc(allowed, func(s *bpx.Section) bool {
				return rd[0] >= int64(s.Pointer) && rd[1] <= int64(s.Pointer)+int64(s.StoredSize())
			}) {
				t.Fatalf("ReadSymbols read [%d, %d), outside its sections", rd[0], rd[1])
			}
		}
		if err != nil {
			checkReadError(t, err, len(b))
		}
		p, perr := ReadPack(r)
		switch {
		case perr == nil && err != nil && !errors.Is(err, bpx.ErrTooLarge):
			t.Fatalf("ReadPack reads the pack, ReadSymbols fails: %v", err)
		case perr == nil && err == nil:
			checkPack(t, &Pack{AssemblyHash: p.AssemblyHash, Target: p.Target, Type: p.Type, Symbols: syms, Shaders: p.Shaders}, p)
		}
		if err != nil {
			return
		}
		bare, err := ReadSymbols(r, SkipExtendedData())
		if err != nil || len(bare) != len(syms) {
			t.Fatalf("SkipExtendedData: %d symbols, %v; without it %d", len(bare), err, len(syms))
		}
		for i := range bare {
			if s := syms[i]; bare[i] != (Symbol{Name: s.Name, Flags: s.Flags, Type: s.Type, Register: s.Register}) {
				t.Fatalf("symbol %d: %+v with SkipExtendedData, %+v without", i, bare[i], s)
			}
		}
	})
}

// addPackSeeds adds SDK 4 packs to f's corpus: the sample pack, a pack
// whose symbol has extended data, and one whose Strings section is 1 byte
// over what ReadSymbols reads for its symbol.
func addPackSeeds(f *testing.F) {
	ext := PackTypeExt{NumSymbols: 1, Target: TargetAny, Type: TypePipeline}.Marshal()
	f.Add(encodePack(f, samplePack()))
	f.Add(container(f, 'S', ext, sec{0xFF, []byte("x\x00")}, sec{2, raw(uint32(0), uint32(0), uint16(0x100), uint8(2), uint8(0xFF))}, sec{3, raw(uint8(0))}, sec{1, []byte{1}}))
	f.Add(container(f, 'S', ext, sec{0xFF, make([]byte, minSymbolData+1)}, sec{2, raw(uint32(0), uint32(0), uint16(0), uint8(2), uint8(0xFF))}))
}

// checkReadError fails t unless err, returned by a reader of a size-byte
// input, is typed and places a file offset inside the input.
func checkReadError(t *testing.T, err error, size int) {
	t.Helper()
	var fe *bpx.FormatError
	if errors.As(err, &fe) && fe.Section < 0 && (fe.Offset < 0 || fe.Offset > int64(size)) {
		t.Fatalf("offset %d outside the %d-byte input: %v", fe.Offset, size, err)
	}
	if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
		t.Fatalf("untyped error %v (%T)", err, err)
	}
}
