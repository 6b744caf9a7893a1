package explorer

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/texture"
)

// benchTexture is a 2048x2048 RGBA texture as "bpx texture import" stores
// it (xz above 64 KiB, CRC32): smooth gradients with some noise, as a
// painted texture has.
func benchTexture(b *testing.B) []byte {
	const side = 2048
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	seed := uint32(1)
	for y := range side {
		for x := range side {
			seed = seed*1664525 + 1013904223
			n := uint8(seed >> 28)
			img.SetNRGBA(x, y, color.NRGBA{uint8(x/8) + n, uint8(y/8) + n, uint8((x+y)/16) + n, 255 - uint8(x/16)})
		}
	}
	tex, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	o := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: bpx.DefaultThreshold}
	if err := texture.Encode(&buf, tex, o); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkTexturePNG compares the PNG preview of a 2048x2048 RGBA
// texture over HTTP with what "bpx texture export" does with it (read,
// decode, png.Encode), measured in the same run; the goal of #18 is
// preview ≤ 1.5x export. Both read the file from memory.
func BenchmarkTexturePNG(b *testing.B) {
	file := benchTexture(b)
	pixels := int64(2048 * 2048 * 4)
	b.Run("export", func(b *testing.B) {
		b.SetBytes(pixels)
		for b.Loop() {
			rd, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				b.Fatal(err)
			}
			tex, err := texture.Read(rd)
			if err != nil {
				b.Fatal(err)
			}
			img, err := tex.Image(0)
			if err != nil {
				b.Fatal(err)
			}
			if err := png.Encode(io.Discard, img); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("preview", func(b *testing.B) {
		s := newPreviewServer(b, "tex.bpx", file)
		ts := httptest.NewServer(s)
		defer ts.Close()
		url := ts.URL + "/api/texture.png?file=0&layer=0"
		b.SetBytes(pixels)
		for b.Loop() {
			resp, err := http.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || n == 0 {
				b.Fatalf("status %d, %d bytes, %v", resp.StatusCode, n, err)
			}
		}
	})
}
