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
