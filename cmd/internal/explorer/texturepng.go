package explorer

import (
	"bytes"
	"fmt"
	"image/png"
	"io/fs"
	"net/http"
	"strconv"
	"sync"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/texture"
)

// textureExt checks that sub is a texture the preview may decode and
// returns its TypeExt: a valid TypeExt, a preview within MaxPreviewBytes
// (textureCost) and
// one PixelArray section of their size. It reads no pixel.
func textureExt(sub *subject) (texture.TypeExt, error) {
	if sub.rd == nil {
		return texture.TypeExt{}, fmt.Errorf("%s: %w", sub.name, sub.rdErr)
	}
	if sub.rd.Header.Type != bpx.TypeTexture {
		return texture.TypeExt{}, badRequestf("%s: not a texture (type %q)", sub.name, sub.rd.Header.Type)
	}
	ext, err := texture.ParseTypeExt(sub.rd.Header.TypeExt)
	if err != nil {
		return ext, fmt.Errorf("%s: %w", sub.name, err)
	}
	// The limit first, with the most a section's decompressor takes: a
	// TypeExt beyond it is refused as too large whatever the sections.
	if err := checkPreviewSize(sub.name+": pixels, a layer's image and PNG", textureCost(ext, nil)); err != nil {
		return ext, err
	}
	secs := sub.rd.SectionsOfType(texture.SectionPixelArray)
	switch {
	case len(secs) == 0:
		return ext, fmt.Errorf("%s: no PixelArray section: %w", sub.name, bpx.ErrFormat)
	case len(secs) > 1:
		return ext, fmt.Errorf("%s: %d PixelArray sections: %w", sub.name, len(secs), bpx.ErrFormat)
	case int64(secs[0].USize) != ext.PixelArraySize():
		return ext, fmt.Errorf("%s: section %d: PixelArray of %d bytes, the TypeExt (%v) needs %d: %w",
			sub.name, secs[0].Index, secs[0].USize, ext, ext.PixelArraySize(), bpx.ErrFormat)
	}
	return ext, storedInside(sub, secs[0])
}

// pixelArray is the PixelArray section of a texture textureExt accepted.
func pixelArray(sub *subject) *bpx.Section {
	return sub.rd.SectionsOfType(texture.SectionPixelArray)[0]
}

// textureCost is what the preview of a layer of a texture of ext, whose
// pixels are section sec, takes at most: the decompressor's state
// (streamCost; the most any section's takes if sec is nil), every layer's pixels (read into a buffer of their exact
// size, see texturePNG), the layer's image where it is not a view of the pixels
// (RGB becomes NRGBA, float a Gray32F), the PNG (the image's rows, barely
// compressed at worst, in a buffer of that size), and the encoder's
// state. A 4096x4096 RGBA texture costs at most 137 MiB.
func textureCost(ext texture.TypeExt, sec *bpx.Section) int64 {
	img, rows := textureImageSizes(ext)
	return streamCost(sec) + ext.PixelArraySize() + img + pngSize(rows) + 2*minPreviewCost
}

// textureImageSizes returns the bytes of the image a layer of ext
// becomes besides its pixels (0 where the image is a view of them) and
// the bytes of the rows of its PNG.
func textureImageSizes(ext texture.TypeExt) (img, rows int64) {
	px := int64(ext.Width()) * int64(ext.Height())
	switch ext.Format {
	case texture.FormatRGBA:
		return 0, 4 * px
	case texture.FormatGreyScale:
		return 0, px
	case texture.FormatRGB:
		return 4 * px, 4 * px // NRGBA; its PNG is RGB when opaque
	default: // float: a Gray32F image, a 16-bit grey PNG
		return 4 * px, 2 * px
	}
}

// pngSize is the room the PNG of an image of img bytes is encoded into:
// its rows and filter bytes, stored blocks' headers at worst, and chunks.
func pngSize(img int64) int64 { return img + img/64 + 64<<10 }

// storedInside checks that the stored bytes of sec lie inside the file, so
// that a truncated file is found before its section is read.
func storedInside(sub *subject, sec *bpx.Section) error {
	if end := sec.Pointer + uint64(sec.StoredSize()); end > uint64(sub.size) {
		return fmt.Errorf("%s: section %d: stored bytes end at %d, past the end of the file (%d bytes): %w",
			sub.name, sec.Index, end, sub.size, bpx.ErrFormat)
	}
	return nil
}

// textureFields are the /api/preview fields of a texture.
func textureFields(sub *subject) (map[string]any, error) {
	ext, err := textureExt(sub)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"width": ext.Width(), "height": ext.Height(), "layers": ext.Layers(),
		"format": ext.Format.String(), "cubeMap": ext.Flags&texture.FlagCubeMap != 0,
		"mipmaps": ext.MipMaps, "png": "/api/texture.png?" + sub.query + "&layer=",
	}, nil
}

// pngBuffers keeps the png encoders' buffers between requests.
type pngBuffers struct{ p sync.Pool }

func (b *pngBuffers) Get() *png.EncoderBuffer {
	if e, ok := b.p.Get().(*png.EncoderBuffer); ok {
		return e
	}
	return nil
}

func (b *pngBuffers) Put(e *png.EncoderBuffer) { b.p.Put(e) }

// pngEncoder encodes previews: fast compression, pooled buffers.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngBuffers{}}

// handleTexturePNG answers /api/texture.png: layer L (default 0) of a
// texture as PNG. Float layers are 16-bit grey, clamped to [0, 1].
func (s *Server) handleTexturePNG(w http.ResponseWriter, r *http.Request) {
	layer := 0
	if v := r.URL.Query().Get("layer"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			fail(w, badRequestf("layer wants a number from 0, got %q", v))
			return
		}
		layer = n
	}
	sub, err := s.subject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer sub.Close()
	ext, err := textureExt(sub)
	if err != nil {
		fail(w, err)
		return
	}
	if layer >= ext.Layers() {
		fail(w, &fs.PathError{Op: "layer", Path: sub.name, Err: fmt.Errorf("no layer %d: the texture has %d: %w", layer, ext.Layers(), fs.ErrNotExist)})
		return
	}
	g, err := s.acquire(r, sub.name, textureCost(ext, pixelArray(sub)))
	if err != nil {
		failRequest(w, r, err)
		return
	}
	b, err := texturePNG(sub, ext, layer)
	if err != nil {
		g.release()
		failRequest(w, r, err)
		return
	}
	send(w, g, "image/png", b)
}

// texturePNG encodes layer of the texture sub (of TypeExt ext) as PNG.
func texturePNG(sub *subject, ext texture.TypeExt, layer int) ([]byte, error) {
	// texture.Read would read the pixels into a buffer that grows as they
	// are decompressed (taking as much again at the end); the preview's
	// share pays for exactly one buffer of their size. textureExt checked
	// that the one PixelArray section holds that size.
	sec := pixelArray(sub)
	pix, err := sec.AppendData(make([]byte, 0, ext.PixelArraySize()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sub.name, err)
	}
	if int64(len(pix)) != ext.PixelArraySize() {
		return nil, fmt.Errorf("%s: section %d: PixelArray decoded to %d bytes, %v needs %d: %w",
			sub.name, sec.Index, len(pix), ext, ext.PixelArraySize(), bpx.ErrFormat)
	}
	tex := &texture.Texture{TypeExt: ext, Pix: pix}
	img, err := tex.Image(layer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sub.name, err)
	}
	_, rows := textureImageSizes(ext)
	var buf bytes.Buffer
	buf.Grow(int(pngSize(rows)))
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("%s: layer %d: %w", sub.name, layer, err)
	}
	return buf.Bytes(), nil
}
