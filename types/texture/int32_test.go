package texture

import (
	"errors"
	"image"
	"image/color"
	"strconv"
	"testing"

	"github.com/gobpx/bpx"
)

// blankImage is an image of any size that stores no pixels.
type blankImage struct{ r image.Rectangle }

func (b blankImage) ColorModel() color.Model { return color.RGBAModel }
func (b blankImage) Bounds() image.Rectangle { return b.r }
func (b blankImage) At(x, y int) color.Color { return color.RGBA{} }

// TestFromImageTooLargeForInt builds a 32768x16384 RGBA texture: 2 GiB of
// pixels, valid for a section but beyond any slice on a 32-bit platform,
// where FromImage must fail with bpx.ErrTooLarge instead of panicking.
func TestFromImageTooLargeForInt(t *testing.T) {
	if strconv.IntSize != 32 {
		t.Skip("2 GiB fits in an int on 64-bit platforms; building it would allocate 2 GiB")
	}
	_, err := FromImage(blankImage{image.Rect(0, 0, 32768, 16384)}, FormatRGBA)
	if !errors.Is(err, bpx.ErrTooLarge) {
		t.Fatalf("FromImage = %v, want ErrTooLarge", err)
	}
}
