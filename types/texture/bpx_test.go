package texture

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

func TestRoundTrip(t *testing.T) {
	for _, ext := range []TypeExt{
		{WidthK: 0, HeightK: 0, Format: FormatRGB},
		{WidthK: 2, HeightK: 1, Format: FormatRGBA, MipMaps: 4, Flags: FlagCompressed},
		{WidthK: 1, HeightK: 3, Format: FormatGreyScale, Array: 3, Flags: FlagArray},
		{WidthK: 1, HeightK: 1, Format: FormatFloat, Array: 6, Flags: FlagCubeMap},
		{WidthK: 0, HeightK: 0, Format: FormatRGB, Array: 7}, // Array kept, 1 layer
	} {
		tex, err := New(ext, seq(int(ext.PixelArraySize()), 1))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []bpx.SectionOptions{{}, {Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}} {
			b := encode(t, tex, o)
			r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if r.Header.Type != 'T' || r.Header.TypeExt != ext.Marshal() || len(r.Sections) != 1 || r.Sections[0].Type != 1 {
				t.Fatalf("%v: header %+v, %d sections", ext, r.Header, len(r.Sections))
			}
			got, err := Read(r)
			if err != nil {
				t.Fatalf("%v: %v", ext, err)
			}
			if got.TypeExt != ext || !bytes.Equal(got.Pix, tex.Pix) {
				t.Fatalf("%v: read back %v with %d bytes", ext, got.TypeExt, len(got.Pix))
			}
		}
	}
}

// The container a 2x2 RGB texture makes, byte for byte: header, one
// section header, 12 bytes of pixels.
func TestEncodeBytes(t *testing.T) {
	tex, err := New(TypeExt{Format: FormatRGB}, seq(12, 0x10))
	if err != nil {
		t.Fatal(err)
	}
	b := encode(t, tex, bpx.SectionOptions{})
	if len(b) != 40+24+12 {
		t.Fatalf("%d bytes", len(b))
	}
	if b[3] != 'T' || !bytes.Equal(b[24:40], []byte{0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("header % x", b[:40])
	}
	if b[40+20] != 1 || !bytes.Equal(b[64:], seq(12, 0x10)) {
		t.Errorf("section % x", b[40:])
	}
}

func TestReadErrors(t *testing.T) {
	ext := TypeExt{WidthK: 0, HeightK: 0, Format: FormatRGBA} // 16 bytes
	good := ext.Marshal()
	for _, c := range []struct {
		name    string
		file    []byte
		section int
		off     int64
		msg     string
	}{
		{"wrong type", container(t, 'M', good, uint8(1), seq(16, 0)), -1, 3, "type 'M' is not a texture"},
		{"bad TypeExt", container(t, 'T', [16]byte{3: 9}, uint8(1), seq(16, 0)), -1, 27, "unknown format 9"},
		{"no PixelArray", container(t, 'T', good, uint8(2), seq(16, 0)), -1, 40, "no PixelArray"},
		{"two PixelArrays", container(t, 'T', good, uint8(1), seq(16, 0), uint8(5), []byte{}, uint8(1), seq(16, 0)), -1, 40 + 48, "second PixelArray section 2"},
		{"short", container(t, 'T', good, uint8(1), seq(15, 0)), 0, 0, "PixelArray holds 15 bytes, 2x2 RGBA, 1 layer, flags 0, 0 mip maps needs 16"},
		{"long", container(t, 'T', good, uint8(1), seq(17, 0)), 0, 0, "holds 17 bytes"},
		{"array short", container(t, 'T', TypeExt{Array: 2, Flags: FlagArray, Format: FormatGreyScale}.Marshal(), uint8(1), seq(4, 0)), 0, 0, "needs 8"},
	} {
		_, err := decode(c.file)
		var fe *bpx.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) || !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("%s: error %v does not match ErrFormat", c.name, err)
			continue
		}
		if fe.Section != c.section || fe.Offset != c.off || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v (section %d offset %d), want section %d offset %d %q", c.name, err, fe.Section, fe.Offset, c.section, c.off, c.msg)
		}
	}
	// Other section types are ignored.
	tex, err := decode(container(t, 'T', good, uint8(0xFF), []byte("x\x00"), uint8(1), seq(16, 0)))
	if err != nil || len(tex.Pix) != 16 {
		t.Errorf("extra section: %v", err)
	}
}

func TestWriteInvalid(t *testing.T) {
	var buf bytes.Buffer
	err := Encode(&buf, &Texture{TypeExt: TypeExt{Format: FormatRGB}, Pix: make([]byte, 11)}, bpx.SectionOptions{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "11 bytes of pixels") {
		t.Errorf("short pixels: %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("Encode wrote %d bytes for an invalid texture", buf.Len())
	}
	if _, err := New(TypeExt{Format: 7}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("format 7: %v", err)
	}
}

func TestLayer(t *testing.T) {
	tex, err := New(TypeExt{Array: 3, Flags: FlagArray, Format: FormatGreyScale}, seq(12, 0))
	if err != nil {
		t.Fatal(err)
	}
	if l := tex.Layer(2); !bytes.Equal(l, []byte{8, 9, 10, 11}) || cap(l) != 4 {
		t.Errorf("Layer(2) = %v cap %d", l, cap(l))
	}
	if tex.Layer(3) != nil || tex.Layer(-1) != nil {
		t.Error("out-of-range layer not nil")
	}
}
