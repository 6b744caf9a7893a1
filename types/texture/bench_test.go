package texture

import (
	"bytes"
	"image"
	"testing"

	"github.com/gobpx/bpx"
)

// Benchmarks against baselines measured in the same run: reading a
// texture against reading its section with Section.Data, and converting
// an image against copying its pixels.

const benchSide = 1024

func benchFile(b *testing.B) []byte {
	tex, err := New(TypeExt{WidthK: 9, HeightK: 9, Format: FormatRGBA}, make([]byte, benchSide*benchSide*4))
	if err != nil {
		b.Fatal(err)
	}
	return encode(b, tex, bpx.SectionOptions{Checksum: bpx.ChecksumWeak})
}

func BenchmarkReadBaselineSectionData(b *testing.B) {
	file := benchFile(b)
	b.SetBytes(benchSide * benchSide * 4)
	for b.Loop() {
		r, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Sections[0].Data(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	file := benchFile(b)
	b.SetBytes(benchSide * benchSide * 4)
	for b.Loop() {
		if _, err := decode(file); err != nil {
			b.Fatal(err)
		}
	}
}

func benchNRGBA() *image.NRGBA { return image.NewNRGBA(image.Rect(0, 0, benchSide, benchSide)) }

func BenchmarkFromImageBaselineCopy(b *testing.B) {
	src := benchNRGBA()
	b.SetBytes(int64(len(src.Pix)))
	for b.Loop() {
		dst := make([]byte, len(src.Pix))
		copy(dst, src.Pix)
	}
}

func BenchmarkFromImageRGBA(b *testing.B) {
	src := benchNRGBA()
	b.SetBytes(int64(len(src.Pix)))
	for b.Loop() {
		if _, err := FromImage(src, FormatRGBA); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromImageRGB(b *testing.B) {
	src := benchNRGBA()
	b.SetBytes(int64(len(src.Pix)))
	for b.Loop() {
		if _, err := FromImage(src, FormatRGB); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromImageOpaqueRGBA converts what image/png returns for an opaque
// truecolour PNG.
func BenchmarkFromImageOpaqueRGBA(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, benchSide, benchSide))
	for i := 3; i < len(src.Pix); i += 4 {
		src.Pix[i] = 0xFF
	}
	b.SetBytes(int64(len(src.Pix)))
	for b.Loop() {
		if _, err := FromImage(src, FormatRGB); err != nil {
			b.Fatal(err)
		}
	}
}
