package shader

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

func TestDetect(t *testing.T) {
	packExt := PackTypeExt{NumSymbols: 3, Target: TargetDX12, Type: TypePipeline}.Marshal()
	asm := make([]byte, AssemblySize)
	for _, c := range []struct {
		name string
		file []byte
		want Layout
	}{
		{"our SDK 4 pack", encodePack(t, samplePack()), LayoutSDK4},
		{"hand-made spec", container(t, 'S', specExt, specSections()...), LayoutSpec},
		// A 36-byte type-2 section is both 3 symbols and an Assembly: no
		// MaterialConstants and an SDK 4 TypeExt make it SDK 4...
		{"3 symbols", container(t, 'S', packExt, sec{0xFF, []byte("a\x00")}, sec{2, asm}), LayoutSDK4},
		// ...while MaterialConstants make it spec.
		{"assembly and constants", container(t, 'S', packExt, sec{2, asm}, sec{4, nil}), LayoutSpec},
		// A spec TypeExt that is no SDK 4 TypeExt (byte 11 is a hash byte).
		{"spec without constants", container(t, 'S', specExt, sec{2, asm}), LayoutSpec},
	} {
		l, err := Detect(openBytes(t, c.file))
		if l != c.want || err != nil {
			t.Errorf("%s: Detect = %v, %v; want %v", c.name, l, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		file []byte
		msg  string
	}{
		{"not S", container(t, 'M', specExt), "type 'M' is not a shader pack"},
		{"no type-2 section", container(t, 'S', packExt, sec{1, []byte{0}}), "neither layout"},
		{"symbol count mismatch, odd size", container(t, 'S', packExt, sec{2, make([]byte, 30)}), "neither layout"},
	} {
		l, err := Detect(openBytes(t, c.file))
		if l != LayoutUnknown || !errors.Is(err, ErrFormat) || !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Detect = %v, %v", c.name, l, err)
		}
	}
	if LayoutSDK4.String() != "SDK 4" || Layout(9).String() != "unknown" {
		t.Error("Layout.String")
	}
}

func TestDescribeTypeExt(t *testing.T) {
	for ext, want := range map[[16]byte]string{
		{10: 0xFF, 11: 'A'}: "shader pack (SDK 4 layout): assembly hash 0x0000000000000000, 0 symbols, target Any, type Assembly",
		{12: 0x9, 13: 1}:    "shader package (spec layout): vertex format hash 0x0000000000000000 / 0x00000000, compatibility DirectX|Metal, 1 constants",
		{12: 0x10}:          "invalid shader TypeExt: shader package TypeExt: unknown compatibility flags 0x10 (byte 12)",
		{14: 1}:             "invalid shader TypeExt: shader package TypeExt: reserved byte 14 is 0x01, want 0 (byte 14)",
	} {
		if got := DescribeTypeExt(ext); got != want {
			t.Errorf("DescribeTypeExt(% x) = %q, want %q", ext, got, want)
		}
	}
}

func TestNames(t *testing.T) {
	for got, want := range map[string]string{
		Target(0x30).String():                      "Target(0x30)",
		TargetMT.String():                          "MT",
		PackType(1).String():                       "PackType(0x01)",
		StageGeometry.String() + Stage(9).String(): "GeometryStage(9)",
		SymbolVertexFormat.String():                "VertexFormat",
		(FlagAssembly | 0x8000).String():           "Assembly|0x8000",
		SymbolFlags(0).String():                    "0",
		(LockHullStage | LockDomainStage).String(): "Hull|Domain",
		DriverMetal.String() + Driver(7).String():  "MetalDriver(7)",
		(CompatDirectX | CompatOpenGL).String():    "DirectX|OpenGL",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

// A version-0 draft file has an 8-byte TypeExt at offset 24, ending the
// 32-byte header: errors about TypeExt bytes 8-15, which such a file does
// not have (they read as 0), name the field, not offsets of the 40-byte
// header of later versions.
func TestVersion0TypeExtErrorOffsets(t *testing.T) {
	b := []byte("BPXS000000000000\x00\x00\x00\x00\x00\x00\x00\x0000000000") // the fuzz finding
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)), bpx.SkipChecksums())
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != 0 {
		t.Fatalf("version %d, want the version-0 draft", r.Header.Version)
	}
	_, err = ReadPack(r)
	var fe *bpx.FormatError
	if !errors.As(err, &fe) || fe.Section != -1 || fe.Offset != typeExtOffset || !errors.Is(err, bpx.ErrFormat) {
		t.Fatalf("ReadPack: %v, want a FormatError at file offset %d", err, typeExtOffset)
	}
	if !strings.Contains(fe.What, "unknown target code") || !strings.Contains(fe.What, "version-0") {
		t.Errorf("ReadPack error does not say what and why: %v", err)
	}
	// The parsers, which see no file, keep the offsets of the 40-byte header.
	if _, err := ParsePackTypeExt([16]byte{10: byte(TargetAny), 11: 'A', 12: 1}); err == nil {
		t.Fatal("ParsePackTypeExt accepted a non-zero byte 12")
	} else if errors.As(err, &fe); fe.Offset != typeExtOffset+12 {
		t.Errorf("ParsePackTypeExt names offset %d, want %d", fe.Offset, typeExtOffset+12)
	}
}
