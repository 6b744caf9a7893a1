package shader

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
	"github.com/gobpx/bpx/sd"
)

// samplePack is what reference-generated/shader_pack.bpx holds according to
// the samples' README and MANIFEST.
func samplePack() *Pack {
	return &Pack{
		AssemblyHash: 0x1122334455667788,
		Target:       TargetGL46,
		Type:         TypePipeline,
		Symbols: []Symbol{
			{Name: "BaseTexture", Flags: FlagRegister | FlagInternal | FlagPixelStage, Type: SymbolTexture, Register: 3},
			{Name: "Material", Flags: FlagExtendedData | FlagPixelStage | FlagVertexStage, Type: SymbolConstantBuffer, Register: NoRegister,
				Extended: sd.NewObject().Set("size", sd.Uint32(64))},
		},
		Shaders: []Shader{
			{Stage: StageVertex, Data: []byte("#version 460\nvoid main(){}\n")},
			{Stage: StagePixel, Data: []byte{0x03, 0x02, 0x23, 0x07}},
		},
	}
}

func openBytes(t testing.TB, b []byte) *bpx.Reader {
	t.Helper()
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func encodePack(t testing.TB, p *Pack) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodePack(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkPack compares two packs, extended data by value.
func checkPack(t *testing.T, got, want *Pack) {
	t.Helper()
	if got.AssemblyHash != want.AssemblyHash || got.Target != want.Target || got.Type != want.Type ||
		len(got.Symbols) != len(want.Symbols) || !reflect.DeepEqual(got.Shaders, want.Shaders) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i := range got.Symbols {
		g, w := got.Symbols[i], want.Symbols[i]
		if g.Name != w.Name || g.Flags != w.Flags || g.Type != w.Type || g.Register != w.Register || (g.Extended == nil) != (w.Extended == nil) || !g.Extended.Equal(w.Extended) {
			t.Errorf("symbol %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestSampleShaderPack(t *testing.T) {
	file := samples.Read(t, "bpx", "reference-generated/shader_pack.bpx")
	r := openBytes(t, file)
	if l, err := Detect(r); l != LayoutSDK4 || err != nil {
		t.Fatalf("Detect = %v, %v", l, err)
	}
	p, err := ReadPack(r)
	if err != nil {
		t.Fatal(err)
	}
	checkPack(t, p, samplePack())
	if v, _ := p.Symbols[1].Extended.Get("size"); v.Kind() != sd.KindUint32 {
		t.Errorf("extended data size is a %v", v.Kind())
	}
	// Our writer reproduces the reference's file byte for byte.
	if enc := encodePack(t, samplePack()); !bytes.Equal(enc, file) {
		t.Errorf("EncodePack differs from the reference file:\n% x\n% x", enc, file)
	}
	if d := DescribeTypeExt(r.Header.TypeExt); d != "shader pack (SDK 4 layout): assembly hash 0x1122334455667788, 2 symbols, target GL46, type Pipeline" {
		t.Errorf("DescribeTypeExt = %q", d)
	}
}

func TestPackRoundTrip(t *testing.T) {
	shared := sd.NewObject().Set("n", sd.String("x"))
	big := bytes.Repeat([]byte("void main(){}\n"), 6000) // > 64 KiB: xz
	p := &Pack{
		AssemblyHash: 1, Target: TargetAny, Type: TypeAssembly,
		Symbols: []Symbol{
			{Name: "a", Type: SymbolOutput, Register: 0, Flags: FlagRegister | FlagExtendedData, Extended: shared},
			{Name: "b", Type: SymbolSampler, Register: NoRegister, Flags: FlagExternal},
			{Name: "c", Type: SymbolPipeline, Register: NoRegister, Flags: FlagExtendedData, Extended: sd.NewObject()},
		},
		Shaders: []Shader{{Stage: StageHull, Data: big}, {Stage: StageGeometry, Data: []byte{}}},
	}
	b := encodePack(t, p)
	r := openBytes(t, b)
	if s := r.SectionsOfType(SectionShader); len(s) != 2 || s[0].Flags&bpx.FlagXZ == 0 || s[1].Flags&bpx.FlagXZ != 0 {
		t.Errorf("shader sections not compressed as the reference does")
	}
	got, err := ReadPack(r)
	if err != nil {
		t.Fatal(err)
	}
	checkPack(t, got, p)
	// An object shared by pointer is written once and read back shared.
	p.Symbols[2].Extended = shared
	r = openBytes(t, encodePack(t, p))
	if ext := r.FindSection(SectionExtendedData); ext == nil || ext.USize != 12 { // {n: "x"}: count, hash, type, "x\0"
		t.Errorf("shared extended data section %+v", ext)
	}
	if got, err = ReadPack(r); err != nil || got.Symbols[0].Extended != got.Symbols[2].Extended {
		t.Errorf("shared extended data not shared on read: %v", err)
	}
	// An empty pack has its Strings and SymbolTable sections only.
	empty := &Pack{Target: TargetVK12, Type: TypePipeline}
	r = openBytes(t, encodePack(t, empty))
	if len(r.Sections) != 2 {
		t.Errorf("empty pack: %d sections", len(r.Sections))
	}
	got, err = ReadPack(r)
	if err != nil {
		t.Fatal(err)
	}
	checkPack(t, got, empty)
}

func TestParsePackTypeExt(t *testing.T) {
	good := PackTypeExt{AssemblyHash: 5, NumSymbols: 0x102, Target: TargetMT, Type: TypeAssembly}
	b := good.Marshal()
	if !bytes.Equal(b[:], []byte{5, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0x11, 'A', 0, 0, 0, 0}) {
		t.Fatalf("Marshal = % x", b)
	}
	if got, err := ParsePackTypeExt(b); err != nil || got != good {
		t.Fatalf("ParsePackTypeExt = %v, %v", got, err)
	}
	for _, c := range []struct {
		i   int
		v   byte
		msg string
	}{{10, 0x12, "unknown target code 0x12"}, {10, 0, "unknown target code 0x00"}, {11, 'X', "neither 'A' nor 'P'"}, {13, 1, "byte 13 is 0x01"}} {
		bad := b
		bad[c.i] = c.v
		_, err := ParsePackTypeExt(bad)
		var fe *bpx.FormatError
		if !errors.As(err, &fe) || fe.Offset != int64(24+c.i) || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("byte %d = %#x: %v", c.i, c.v, err)
		}
	}
}

func TestPackReadErrors(t *testing.T) {
	ext := PackTypeExt{AssemblyHash: 9, NumSymbols: 2, Target: TargetGL33, Type: TypeAssembly}.Marshal()
	// Symbol 0 "a" has extended data at 0, symbol 1 "b" none.
	sym := func(name, ptr uint32, flags uint16, typ, reg uint8) []byte { return raw(name, ptr, flags, typ, reg) }
	tab := raw(sym(0, 0, 0x100, 2, 0xFF), sym(2, noExtendedData, 0x1, 0, 0xFF))
	objU8 := raw(uint8(1), uint64(5381), uint8(2), uint8(0)) // {hash 5381: u8 0}, 11 bytes
	good := []sec{{0xFF, []byte("a\x00b\x00")}, {2, tab}, {3, objU8}, {1, []byte{4, 1, 2}}}
	with := func(edit func(s []sec) []sec) []byte {
		s := make([]sec, len(good))
		copy(s, good)
		return container(t, 'S', ext, edit(s)...)
	}
	set := func(i int, v []byte) func([]sec) []sec { return func(s []sec) []sec { s[i].data = v; return s } }
	p, err := ReadPack(openBytes(t, with(func(s []sec) []sec { return s })))
	if err != nil || len(p.Symbols) != 2 || p.Symbols[0].Extended.Len() != 1 || p.Shaders[0].Stage != StagePixel {
		t.Fatalf("good file: %+v, %v", p, err)
	}
	badExt := ext
	badExt[10] = 0x20
	for _, c := range []struct {
		name    string
		file    []byte
		section int
		off     int64
		msg     string
	}{
		{"type", container(t, 'T', ext, good...), -1, 3, "not a shader pack"},
		{"target", container(t, 'S', badExt, good...), -1, 34, "unknown target code 0x20"},
		{"no symbol table", with(func(s []sec) []sec { return append(s[:1], s[2:]...) }), -1, 40, "no SymbolTable"},
		{"symbol table size", with(set(1, tab[:23])), 1, 23, "SymbolTable holds 23 bytes, the TypeExt's 2 symbols need 24"},
		{"no strings", with(func(s []sec) []sec { return s[1:] }), -1, 40, "no Strings section"},
		{"name", with(set(0, []byte("a\x00b"))), 1, 12, "symbol name"},
		{"symbol type", with(set(1, raw(tab[:12], sym(2, noExtendedData, 0, 7, 0)))), 1, 22, "symbol 1 has unknown type 7"},
		{"no extended data", with(func(s []sec) []sec { return append(s[:2], s[3]) }), 1, 4, "no ExtendedData section"},
		{"extended offset", with(set(1, raw(sym(0, 11, 0x100, 2, 0xFF), tab[12:]))), 1, 4, "extended data offset 11 beyond the 11-byte ExtendedData section 2"},
		{"extended bad sd", with(set(2, raw(uint8(1), uint64(5381), uint8(15)))), 2, 0, "extended data object"},
		{"overlap", with(set(1, raw(tab[:12], sym(2, 10, 0x100, 2, 0xFF)))), 2, 10, "overlaps another"},
		{"empty shader", with(set(3, []byte{})), 3, 0, "empty Shader section"},
		{"stage", with(set(3, []byte{5})), 3, 0, "unknown shader stage 5"},
	} {
		r, err := bpx.NewReader(bytes.NewReader(c.file), int64(len(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadPack(r)
		checkFormatError(t, c.name, err, c.section, c.off, c.msg)
	}
	// Two symbols sharing one object decode it once, to the same *sd.Object.
	p, err = ReadPack(openBytes(t, with(set(1, raw(tab[:12], sym(2, 0, 0x100, 2, 0xFF))))))
	if err != nil || p.Symbols[0].Extended != p.Symbols[1].Extended {
		t.Errorf("shared extended data: %v", err)
	}
}

func TestPackValidate(t *testing.T) {
	ok := func() *Pack { return &Pack{Target: TargetGL33, Type: TypeAssembly} }
	for _, c := range []struct {
		edit func(p *Pack)
		msg  string
	}{
		{func(p *Pack) { p.Target = 0x40 }, "unknown target Target(0x40)"},
		{func(p *Pack) { p.Type = 'Q' }, "neither Assembly nor Pipeline"},
		{func(p *Pack) { p.Symbols = make([]Symbol, 65536) }, "65536 symbols"},
		{func(p *Pack) { p.Symbols = []Symbol{{Name: "a\x00"}} }, "symbol 0 name"},
		{func(p *Pack) { p.Symbols = []Symbol{{Type: 7}} }, "unknown type SymbolType(7)"},
		{func(p *Pack) { p.Symbols = []Symbol{{Flags: FlagExtendedData}} }, "FlagExtendedData is true but Extended is false"},
		{func(p *Pack) { p.Symbols = []Symbol{{Extended: sd.NewObject()}} }, "FlagExtendedData is false but Extended is true"},
		{func(p *Pack) {
			p.Symbols = []Symbol{{Flags: FlagExtendedData, Extended: sd.NewObject().Set("s", sd.String("\xff"))}}
		}, "symbol 0 extended data"},
		{func(p *Pack) { p.Shaders = []Shader{{Stage: 5}} }, "shader 0 has unknown stage Stage(5)"},
	} {
		p := ok()
		c.edit(p)
		err := p.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("got %v, want %q", err, c.msg)
		}
		var buf bytes.Buffer
		if err := EncodePack(&buf, p); err == nil || buf.Len() != 0 {
			t.Errorf("EncodePack of an invalid pack: %v, %d bytes", err, buf.Len())
		}
	}
}
