package texture

import (
	"image"
	"image/color"
)

// Gray32F is an in-memory image of float32 grey levels, the image form of a
// Float texture layer. Its color model is color.Gray16Model: At clamps a
// value to [0, 1] and scales it to 0..65535 (NaN gives 0), so any image
// consumer, image/png included, sees a 16-bit grey image; Float32At gives
// the exact value.
type Gray32F struct {
	// Pix holds the values in row-major order: the value at (x, y) is
	// Pix[(y-Rect.Min.Y)*Stride + (x-Rect.Min.X)].
	Pix []float32
	// Stride is the distance in elements between vertically adjacent values.
	Stride int
	// Rect is the image's bounds.
	Rect image.Rectangle
}

// NewGray32F returns a new Gray32F image with the given bounds, all zero.
func NewGray32F(r image.Rectangle) *Gray32F {
	return &Gray32F{Pix: make([]float32, r.Dx()*r.Dy()), Stride: r.Dx(), Rect: r}
}

// ColorModel returns color.Gray16Model.
func (p *Gray32F) ColorModel() color.Model { return color.Gray16Model }

// Bounds returns the image's bounds.
func (p *Gray32F) Bounds() image.Rectangle { return p.Rect }

// At returns the value at (x, y) as a color.Gray16, clamped to [0, 1].
func (p *Gray32F) At(x, y int) color.Color { return color.Gray16{Y: unitToGray16(p.Float32At(x, y))} }

// Float32At returns the value at (x, y), or 0 outside the bounds.
func (p *Gray32F) Float32At(x, y int) float32 {
	if !(image.Point{x, y}.In(p.Rect)) {
		return 0
	}
	return p.Pix[p.PixOffset(x, y)]
}

// SetFloat32 sets the value at (x, y); it does nothing outside the bounds.
func (p *Gray32F) SetFloat32(x, y int, v float32) {
	if !(image.Point{x, y}.In(p.Rect)) {
		return
	}
	p.Pix[p.PixOffset(x, y)] = v
}

// PixOffset returns the index in Pix of the value at (x, y).
func (p *Gray32F) PixOffset(x, y int) int {
	return (y-p.Rect.Min.Y)*p.Stride + (x - p.Rect.Min.X)
}

// unitToGray16 maps [0, 1] to 0..65535, rounding, with clamping; NaN gives 0.
func unitToGray16(v float32) uint16 {
	switch {
	case v >= 1:
		return 0xFFFF
	case v > 0:
		return uint16(v*0xFFFF + 0.5)
	}
	return 0 // v ≤ 0 or NaN
}
