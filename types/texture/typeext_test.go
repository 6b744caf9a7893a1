package texture

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// The bit-field layout of the package documentation, byte by byte.
func TestTypeExtLayout(t *testing.T) {
	ext := TypeExt{Array: 0x0102, WidthK: 7, HeightK: 3, Format: FormatRGBA, Flags: FlagArray | FlagCompressed, MipMaps: 9}
	want := [16]byte{0x02, 0x01, 0x37, 0x32, 9}
	if got := ext.Marshal(); got != want {
		t.Fatalf("Marshal = % x, want % x", got, want)
	}
	back, err := ParseTypeExt(want)
	if err != nil {
		t.Fatal(err)
	}
	if back != ext {
		t.Fatalf("ParseTypeExt = %+v, want %+v", back, ext)
	}
	if ext.Width() != 256 || ext.Height() != 16 {
		t.Errorf("size %dx%d, want 256x16", ext.Width(), ext.Height())
	}
	if n := ext.PixelArraySize(); n != 256*16*4*0x0102 {
		t.Errorf("PixelArraySize = %d", n)
	}
}

func TestLayers(t *testing.T) {
	for _, c := range []struct {
		array uint16
		flags Flags
		want  int
	}{
		{0, 0, 1},
		{5, 0, 1}, // Array ignored without a flag (§11.3.4)
		{0, FlagArray, 1},
		{5, FlagArray, 5},
		{6, FlagCubeMap, 6},
		{6, FlagCubeMap | FlagArray, 6},
		{5, FlagCompressed, 1},
	} {
		ext := TypeExt{Array: c.array, Flags: c.flags, Format: FormatRGB}
		if got := ext.Layers(); got != c.want {
			t.Errorf("Array %d flags %v: Layers = %d, want %d", c.array, c.flags, got, c.want)
		}
	}
}

func TestParseTypeExtErrors(t *testing.T) {
	valid := TypeExt{WidthK: 1, HeightK: 1, Format: FormatRGB}.Marshal()
	for _, c := range []struct {
		name string
		edit func(b *[16]byte)
		off  int64
		msg  string
	}{
		{"reserved byte 5", func(b *[16]byte) { b[5] = 1 }, 29, "reserved byte 5"},
		{"reserved byte 15", func(b *[16]byte) { b[15] = 0x80 }, 39, "reserved byte 15"},
		{"format 0", func(b *[16]byte) { b[3] = 0 }, 27, "unknown format 0"},
		{"format 5", func(b *[16]byte) { b[3] = 5 }, 27, "unknown format 5"},
		{"flag 8", func(b *[16]byte) { b[3] = 0x81 }, 27, "unknown flags 0x8"},
		{"cube map array 5", func(b *[16]byte) { b[0], b[3] = 5, 0x41 }, 24, "cube map with Array 5"},
		{"16 GiB", func(b *[16]byte) { b[2], b[3] = 0xFF, 0x02 }, 26, "more than a section holds"},
	} {
		b := valid
		c.edit(&b)
		_, err := ParseTypeExt(b)
		var fe *bpx.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) || !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("%s: error %v does not match ErrFormat", c.name, err)
			continue
		}
		if fe.Offset != c.off || fe.Section != -1 || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v (offset %d, section %d), want offset %d and %q", c.name, err, fe.Offset, fe.Section, c.off, c.msg)
		}
		if d := DescribeTypeExt(b); !strings.HasPrefix(d, "invalid texture TypeExt") || !strings.Contains(d, c.msg) {
			t.Errorf("%s: DescribeTypeExt = %q", c.name, d)
		}
	}
}

func TestDescribeTypeExt(t *testing.T) {
	for _, c := range []struct {
		ext  TypeExt
		want string
	}{
		{TypeExt{WidthK: 7, HeightK: 7, Format: FormatRGBA}, "texture 256x256 RGBA, 1 layer, flags 0, 0 mip maps"},
		{TypeExt{Array: 6, WidthK: 0, HeightK: 15, Format: FormatFloat, Flags: FlagCubeMap | FlagCompressed, MipMaps: 3},
			"texture 2x65536 Float, 6 layers, flags Compressed|CubeMap, 3 mip maps"},
		{TypeExt{Array: 3, WidthK: 2, HeightK: 1, Format: FormatGreyScale, Flags: FlagArray}, "texture 8x4 GreyScale, 3 layers, flags Array, 0 mip maps"},
	} {
		if got := DescribeTypeExt(c.ext.Marshal()); got != c.want {
			t.Errorf("DescribeTypeExt = %q, want %q", got, c.want)
		}
	}
	if got := DescribeTypeExt([16]byte{}); got != "invalid texture TypeExt: unknown format 0 (byte 3)" {
		t.Errorf("zero TypeExt: %q", got)
	}
}

func TestSideExponent(t *testing.T) {
	for n, want := range map[int]int{2: 0, 4: 1, 512: 8, 65536: 15} {
		if k, ok := sideExponent(n); !ok || int(k) != want {
			t.Errorf("sideExponent(%d) = %d, %v; want %d", n, k, ok, want)
		}
	}
	for _, n := range []int{-2, 0, 1, 3, 300, 131072} {
		if _, ok := sideExponent(n); ok {
			t.Errorf("sideExponent(%d) accepted", n)
		}
	}
}

func TestFormatAndFlagsString(t *testing.T) {
	if s := Format(9).String(); s != "Format(9)" {
		t.Errorf("Format(9) = %q", s)
	}
	if s := (FlagArray | 0x8).String(); s != "Array|0x8" {
		t.Errorf("flags = %q", s)
	}
}
