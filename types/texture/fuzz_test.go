package texture

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx"
)

// FuzzRead checks that reading any container never panics, that malformed
// textures fail with a *bpx.FormatError inside the input, and that whatever
// reads converts to images and writes back to the same texture.
func FuzzRead(f *testing.F) {
	for _, ext := range []TypeExt{
		{Format: FormatRGB},
		{WidthK: 1, Format: FormatRGBA, Flags: FlagCompressed, MipMaps: 2},
		{Array: 2, Flags: FlagArray, Format: FormatGreyScale},
		{Array: 6, Flags: FlagCubeMap, Format: FormatFloat},
	} {
		tex, err := New(ext, seq(int(ext.PixelArraySize()), 0))
		if err != nil {
			f.Fatal(err)
		}
		b := encode(f, tex, bpx.SectionOptions{Checksum: bpx.ChecksumWeak})
		f.Add(b)
		f.Add(b[:len(b)-1])
		f.Add(encode(f, tex, bpx.SectionOptions{Compression: bpx.CompressXZ}))
	}
	f.Add(container(f, 'T', [16]byte{3: 1}, uint8(1), seq(11, 0)))
	f.Add(container(f, 'T', [16]byte{0: 6, 3: 0x41}, uint8(1), seq(12, 0), uint8(1), seq(12, 0)))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)), bpx.WithMaxSectionSize(1<<20), bpx.SkipChecksums())
		if err != nil {
			return
		}
		tex, err := Read(r)
		if err != nil {
			var fe *bpx.FormatError
			if errors.As(err, &fe) && errors.Is(err, ErrFormat) {
				if fe.Section < 0 && (fe.Offset < 0 || fe.Offset > int64(len(b))) {
					t.Fatalf("offset %d outside the %d-byte input: %v", fe.Offset, len(b), err)
				}
				return
			}
			if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
				t.Fatalf("untyped error %v (%T)", err, err)
			}
			return
		}
		for i := 0; i < tex.Layers(); i++ {
			img, err := tex.Image(i)
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds().Dx() != tex.Width() || img.Bounds().Dy() != tex.Height() {
				t.Fatalf("layer %d bounds %v", i, img.Bounds())
			}
		}
		again, err := decode(encode(t, tex, bpx.SectionOptions{}))
		if err != nil {
			t.Fatalf("re-encoded texture does not read: %v", err)
		}
		if again.TypeExt != tex.TypeExt || !bytes.Equal(again.Pix, tex.Pix) {
			t.Fatal("texture changed through Encode and Read")
		}
	})
}
