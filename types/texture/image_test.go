package texture

import (
	"errors"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
)

func TestImageRGBASharesPixels(t *testing.T) {
	tex, err := New(TypeExt{Format: FormatRGBA}, seq(16, 0))
	if err != nil {
		t.Fatal(err)
	}
	img, err := tex.Image(0)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := img.(*image.NRGBA)
	if !ok || m.Bounds() != image.Rect(0, 0, 2, 2) {
		t.Fatalf("got %T %v", img, img.Bounds())
	}
	if c := m.NRGBAAt(1, 1); c != (color.NRGBA{12, 13, 14, 15}) {
		t.Errorf("(1,1) = %v", c)
	}
	m.Pix[0] = 99
	if tex.Pix[0] != 99 {
		t.Error("RGBA image does not share the texture's bytes")
	}
}

func TestImageRGB(t *testing.T) {
	tex, err := New(TypeExt{Array: 2, Flags: FlagArray, Format: FormatRGB}, seq(24, 0))
	if err != nil {
		t.Fatal(err)
	}
	img, err := tex.Image(1)
	if err != nil {
		t.Fatal(err)
	}
	m := img.(*image.NRGBA)
	want := []color.NRGBA{{12, 13, 14, 255}, {15, 16, 17, 255}, {18, 19, 20, 255}, {21, 22, 23, 255}}
	for i, w := range want {
		if c := m.NRGBAAt(i%2, i/2); c != w {
			t.Errorf("pixel %d = %v, want %v", i, c, w)
		}
	}
	if _, err := tex.Image(2); !errors.Is(err, ErrInvalid) {
		t.Errorf("Image(2): %v", err)
	}
}

func TestImageGrey(t *testing.T) {
	tex, err := New(TypeExt{WidthK: 1, Format: FormatGreyScale}, seq(8, 100))
	if err != nil {
		t.Fatal(err)
	}
	img, _ := tex.Image(0)
	m := img.(*image.Gray)
	if m.Bounds() != image.Rect(0, 0, 4, 2) || m.GrayAt(3, 1).Y != 107 {
		t.Errorf("grey image %v, (3,1) = %v", m.Bounds(), m.GrayAt(3, 1))
	}
}

func TestFloatRoundTrip(t *testing.T) {
	src := NewGray32F(image.Rect(0, 0, 2, 2))
	vals := []float32{-1, 0.5, 2, float32(math.NaN())}
	copy(src.Pix, vals)
	tex, err := FromImage(src, FormatFloat)
	if err != nil {
		t.Fatal(err)
	}
	if tex.Pix[4] != 0 || tex.Pix[5] != 0 || tex.Pix[6] != 0 || tex.Pix[7] != 0x3f { // 0.5 = 0x3f000000 LE
		t.Errorf("float bytes % x", tex.Pix)
	}
	img, err := tex.Image(0)
	if err != nil {
		t.Fatal(err)
	}
	m := img.(*Gray32F)
	for i, v := range vals {
		got := m.Float32At(i%2, i/2)
		if math.Float32bits(got) != math.Float32bits(v) {
			t.Errorf("value %d = %v, want %v", i, got, v)
		}
	}
	// At clamps to [0, 1] as 16-bit grey.
	for i, w := range []uint16{0, 32768, 65535, 0} {
		if c := m.At(i%2, i/2).(color.Gray16); c.Y != w {
			t.Errorf("At %d = %d, want %d", i, c.Y, w)
		}
	}
	if m.Float32At(5, 5) != 0 || m.ColorModel() != color.Gray16Model {
		t.Error("outside value or color model")
	}
	m.SetFloat32(9, 9, 1) // ignored
	m.SetFloat32(1, 0, 0.25)
	if m.Float32At(1, 0) != 0.25 {
		t.Error("SetFloat32")
	}
}

func TestFromImageConversions(t *testing.T) {
	// Premultiplied RGBA with partial alpha becomes straight alpha:
	// 100/128 of 255 rounds down to 199 in color.NRGBAModel.
	rgba := image.NewRGBA(image.Rect(0, 0, 2, 2))
	rgba.SetRGBA(0, 0, color.RGBA{100, 50, 0, 128})
	rgba.SetRGBA(1, 0, color.RGBA{1, 2, 3, 255})
	tex, err := FromImage(rgba, FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	if got := tex.Pix[:8]; string(got) != string([]byte{199, 99, 0, 128, 1, 2, 3, 255}) {
		t.Errorf("RGBA from premultiplied: %v", got)
	}
	// RGB drops alpha.
	tex, err = FromImage(rgba, FormatRGB)
	if err != nil {
		t.Fatal(err)
	}
	if got := tex.Pix[:6]; string(got) != string([]byte{199, 99, 0, 1, 2, 3}) {
		t.Errorf("RGB: %v", got)
	}
	// Grey with the standard luma weights: pure red is 76.
	red := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i := 0; i < 4; i++ {
		red.SetNRGBA(i%2, i/2, color.NRGBA{255, 0, 0, 255})
	}
	tex, err = FromImage(red, FormatGreyScale)
	if err != nil {
		t.Fatal(err)
	}
	if tex.Pix[0] != 76 {
		t.Errorf("grey of red = %d, want 76", tex.Pix[0])
	}
	// Float from 16-bit grey is scaled to [0, 1].
	g16 := image.NewGray16(image.Rect(0, 0, 2, 2))
	g16.SetGray16(0, 0, color.Gray16{Y: 0xFFFF})
	tex, err = FromImage(g16, FormatFloat)
	if err != nil {
		t.Fatal(err)
	}
	img, _ := tex.Image(0)
	if v := img.(*Gray32F).Float32At(0, 0); v != 1 {
		t.Errorf("float of white = %v", v)
	}
}

// A sub-image not at the origin uses its own pixels, in the fast paths too.
func TestFromSubImage(t *testing.T) {
	big := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	gray := image.NewGray(image.Rect(0, 0, 4, 4))
	for i := range big.Pix {
		big.Pix[i] = byte(i)
	}
	for i := range gray.Pix {
		gray.Pix[i] = byte(i)
	}
	tex, err := FromImage(big.SubImage(image.Rect(2, 2, 4, 4)), FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	if tex.Pix[0] != 40 || tex.Pix[8] != 56 {
		t.Errorf("NRGBA sub-image: %v", tex.Pix)
	}
	opaque := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range opaque.Pix {
		opaque.Pix[i] = byte(i) | 3
		if i%4 == 3 {
			opaque.Pix[i] = 0xFF
		}
	}
	tex, err = FromImage(opaque.SubImage(image.Rect(2, 2, 4, 4)), FormatRGB)
	if err != nil {
		t.Fatal(err)
	}
	if tex.Pix[0] != 43 || tex.Pix[1] != 43 || tex.Pix[2] != 43 || tex.Pix[3] != 47 || tex.Pix[6] != 59 {
		t.Errorf("opaque RGBA sub-image as RGB: %v", tex.Pix)
	}
	tex, err = FromImage(gray.SubImage(image.Rect(2, 2, 4, 4)), FormatGreyScale)
	if err != nil {
		t.Fatal(err)
	}
	if string(tex.Pix) != string([]byte{10, 11, 14, 15}) {
		t.Errorf("Gray sub-image: %v", tex.Pix)
	}
}

func TestCubeMapFromImages(t *testing.T) {
	var faces []image.Image
	for i := 0; i < 6; i++ {
		g := image.NewGray(image.Rect(0, 0, 2, 2))
		for j := range g.Pix {
			g.Pix[j] = byte(10 * i)
		}
		faces = append(faces, g)
	}
	tex, err := FromImages(faces, FormatGreyScale, FlagCubeMap)
	if err != nil {
		t.Fatal(err)
	}
	if tex.Array != 6 || tex.Layers() != 6 || len(tex.Pix) != 24 || tex.Layer(5)[0] != 50 {
		t.Errorf("cube map %v, %d bytes", tex.TypeExt, len(tex.Pix))
	}
	if _, err := FromImages(faces[:5], FormatGreyScale, FlagCubeMap); !errors.Is(err, ErrInvalid) {
		t.Errorf("5 faces: %v", err)
	}
	arr, err := FromImages(faces[:3], FormatGreyScale, FlagArray)
	if err != nil || arr.Array != 3 || arr.Layers() != 3 {
		t.Errorf("array: %v %v", arr, err)
	}
}

func TestFromImageErrors(t *testing.T) {
	sq := func(w, h int) image.Image { return image.NewGray(image.Rect(0, 0, w, h)) }
	for _, c := range []struct {
		imgs  []image.Image
		f     Format
		flags Flags
		msg   string
	}{
		{[]image.Image{sq(300, 256)}, FormatRGB, 0, "width 300 is not a power of two from 2 to 65536: resize or pad the image to 512"},
		{[]image.Image{sq(4, 1)}, FormatRGB, 0, "height 1 is not a power of two from 2 to 65536: resize or pad the image to 2"},
		{[]image.Image{sq(70000, 2)}, FormatGreyScale, 0, "width 70000"},
		{[]image.Image{sq(4, 4), sq(4, 8)}, FormatRGB, FlagArray, "image 1 is 4x8, image 0 is 4x4"},
		{[]image.Image{sq(4, 4), sq(4, 4)}, FormatRGB, 0, "2 images need FlagArray or FlagCubeMap"},
		{nil, FormatRGB, 0, "no image"},
		{[]image.Image{sq(4, 4)}, 0, 0, "unknown format 0"},
		{[]image.Image{sq(4, 4)}, FormatRGB, 0x8, "unknown flags 0x8"},
	} {
		_, err := FromImages(c.imgs, c.f, c.flags)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("got %v, want %q", err, c.msg)
		}
	}
}
