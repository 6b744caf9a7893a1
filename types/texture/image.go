package texture

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/gobpx/bpx"
)

// Image returns layer i (0 ≤ i < Layers()) as an image with bounds
// (0, 0)-(Width, Height):
//   - RGBA: an *image.NRGBA whose Pix is the layer's bytes (shared, not
//     copied);
//   - GreyScale: an *image.Gray whose Pix is the layer's bytes (shared);
//   - RGB: a new *image.NRGBA with alpha 255;
//   - Float: a new *Gray32F.
//
// It fails (matching ErrInvalid) when i is out of range or t does not
// validate.
func (t *Texture) Image(i int) (image.Image, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if i < 0 || i >= t.Layers() {
		return nil, invalidf("layer %d out of range [0, %d)", i, t.Layers())
	}
	pix := t.Layer(i)
	w, h := t.Width(), t.Height()
	r := image.Rect(0, 0, w, h)
	switch t.Format {
	case FormatRGBA:
		return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: r}, nil
	case FormatGreyScale:
		return &image.Gray{Pix: pix, Stride: w, Rect: r}, nil
	case FormatRGB:
		m := image.NewNRGBA(r)
		for j, k := 0, 0; j < len(pix); j, k = j+3, k+4 {
			m.Pix[k], m.Pix[k+1], m.Pix[k+2], m.Pix[k+3] = pix[j], pix[j+1], pix[j+2], 0xFF
		}
		return m, nil
	default: // FormatFloat; Validate rejected the others
		m := NewGray32F(r)
		for k := range m.Pix {
			m.Pix[k] = math.Float32frombits(binary.LittleEndian.Uint32(pix[4*k:]))
		}
		return m, nil
	}
}

// FromImage returns a single-layer texture of the given format holding img:
// FromImages with one image and no flags.
func FromImage(img image.Image, format Format) (*Texture, error) {
	return FromImages([]image.Image{img}, format, 0)
}

// FromImages returns a texture of the given format and flags whose layers
// are imgs, all of the same size, each side a power of two from 2 to 65536.
// More than one image needs FlagArray (TypeExt.Array is set to len(imgs),
// at most 65535) or FlagCubeMap (exactly 6 images, in the face order of the
// package documentation).
//
// Pixels are converted with the standard color models: to straight-alpha
// RGBA (color.NRGBAModel) for RGB and RGBA, the alpha being dropped for RGB
// (not composited); to 8-bit grey (color.GrayModel) for GreyScale; and to
// 16-bit grey (color.Gray16Model) scaled to [0, 1] for Float, except that a
// *Gray32F keeps its exact values. Errors match ErrInvalid.
func FromImages(imgs []image.Image, format Format, flags Flags) (*Texture, error) {
	if format.PixelSize() == 0 {
		return nil, invalidf("unknown format %d", uint8(format))
	}
	if len(imgs) == 0 {
		return nil, invalidf("no image")
	}
	ext := TypeExt{Format: format, Flags: flags}
	switch {
	case flags&FlagCubeMap != 0:
		if len(imgs) != CubeFaces {
			return nil, invalidf("a cube map needs 6 images, got %d", len(imgs))
		}
		ext.Array = CubeFaces
	case flags&FlagArray != 0:
		if len(imgs) > math.MaxUint16 {
			return nil, invalidf("%d images, a texture array holds at most 65535", len(imgs))
		}
		ext.Array = uint16(len(imgs))
	case len(imgs) > 1:
		return nil, invalidf("%d images need FlagArray or FlagCubeMap", len(imgs))
	}
	size := imgs[0].Bounds().Size()
	var ok bool
	if ext.WidthK, ok = sideExponent(size.X); !ok {
		return nil, invalidf("width %d is not a power of two from 2 to 65536: resize or pad the image to %d", size.X, suggestSide(size.X))
	}
	if ext.HeightK, ok = sideExponent(size.Y); !ok {
		return nil, invalidf("height %d is not a power of two from 2 to 65536: resize or pad the image to %d", size.Y, suggestSide(size.Y))
	}
	if err := ext.Validate(); err != nil {
		return nil, err
	}
	for i, img := range imgs[1:] {
		if s := img.Bounds().Size(); s != size {
			return nil, invalidf("image %d is %dx%d, image 0 is %dx%d", i+1, s.X, s.Y, size.X, size.Y)
		}
	}
	n := ext.PixelArraySize()
	if n > int64(int(^uint(0)>>1)) { // 32-bit platforms: above 2 GiB - 1
		return nil, fmt.Errorf("texture: %v needs %d bytes of pixels, more than a slice holds on this platform: %w", ext, n, bpx.ErrTooLarge)
	}
	t := &Texture{TypeExt: ext, Pix: make([]byte, n)}
	for i, img := range imgs {
		putLayer(t.Layer(i), img, format)
	}
	return t, nil
}

// suggestSide returns the power of two nearest above n within the limits.
func suggestSide(n int) int {
	s := MinSide
	for s < n && s < MaxSide {
		s <<= 1
	}
	return s
}

// putLayer converts img into dst, a layer of the image's size in format f.
func putLayer(dst []byte, img image.Image, f Format) {
	b := img.Bounds()
	w := b.Dx()
	switch f {
	case FormatRGBA:
		if pix, stride, ok := straightPix(img); ok {
			for y := 0; y < b.Dy(); y++ {
				copy(dst[y*4*w:(y+1)*4*w], pix[y*stride:y*stride+4*w])
			}
			return
		}
		k := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := nrgbaAt(img, x, y)
				dst[k], dst[k+1], dst[k+2], dst[k+3] = c.R, c.G, c.B, c.A
				k += 4
			}
		}
	case FormatRGB:
		if pix, stride, ok := straightPix(img); ok {
			for y := 0; y < b.Dy(); y++ {
				row := pix[y*stride : y*stride+4*w]
				out := dst[y*3*w : (y+1)*3*w]
				for j, k := 0, 0; j < len(row); j, k = j+4, k+3 {
					out[k], out[k+1], out[k+2] = row[j], row[j+1], row[j+2]
				}
			}
			return
		}
		k := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := nrgbaAt(img, x, y)
				dst[k], dst[k+1], dst[k+2] = c.R, c.G, c.B
				k += 3
			}
		}
	case FormatGreyScale:
		if m, ok := img.(*image.Gray); ok {
			for y := 0; y < b.Dy(); y++ {
				off := m.PixOffset(b.Min.X, b.Min.Y+y)
				copy(dst[y*w:(y+1)*w], m.Pix[off:off+w])
			}
			return
		}
		k := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				dst[k] = color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
				k++
			}
		}
	case FormatFloat:
		m, exact := img.(*Gray32F)
		k := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				var v float32
				if exact {
					v = m.Pix[m.PixOffset(x, y)]
				} else {
					v = float32(color.Gray16Model.Convert(img.At(x, y)).(color.Gray16).Y) / 0xFFFF
				}
				binary.LittleEndian.PutUint32(dst[k:], math.Float32bits(v))
				k += 4
			}
		}
	}
}

// nrgbaAt returns the straight-alpha colour of img at (x, y), avoiding the
// generic conversion for the image types image/png returns.
func nrgbaAt(img image.Image, x, y int) color.NRGBA {
	switch m := img.(type) {
	case *image.NRGBA:
		return m.NRGBAAt(x, y)
	case *image.RGBA:
		if c := m.RGBAAt(x, y); c.A == 0xFF {
			return color.NRGBA(c)
		}
	}
	return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
}

// straightPix returns the straight-alpha RGBA bytes of img starting at its
// top-left pixel and their row stride, when img stores them so: an
// *image.NRGBA, or an opaque *image.RGBA (what image/png returns for opaque
// truecolour PNGs), whose premultiplied bytes are then straight.
func straightPix(img image.Image) ([]byte, int, bool) {
	switch m := img.(type) {
	case *image.NRGBA:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, true
	case *image.RGBA:
		if m.Opaque() {
			return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, true
		}
	}
	return nil, 0, false
}
