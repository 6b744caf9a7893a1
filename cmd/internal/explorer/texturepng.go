package explorer

import (
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
// returns its TypeExt: a valid TypeExt, pixels within MaxPreviewBytes and
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
	if err := checkPreviewSize(sub.name+": pixels", ext.PixelArraySize()); err != nil {
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
	release, err := s.acquire(r)
	if err != nil {
		return
	}
	defer release()
	tex, err := texture.Read(sub.rd)
	if err != nil {
		fail(w, fmt.Errorf("%s: %w", sub.name, err))
		return
	}
	img, err := tex.Image(layer)
	if err != nil {
		fail(w, fmt.Errorf("%s: %w", sub.name, err))
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	pngEncoder.Encode(w, img) // an error here is a gone client
}
