package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/texture"
)

// writePNG writes img as a PNG file in dir and returns its path.
func writePNG(t *testing.T, dir, name string, img image.Image) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readTextureFile reads a texture written by the command.
func readTextureFile(t *testing.T, name string) *texture.Texture {
	t.Helper()
	rc, err := bpx.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tex, err := texture.Read(&rc.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return tex
}

func TestTextureImportExport(t *testing.T) {
	dir := t.TempDir()
	src := image.NewNRGBA(image.Rect(0, 0, 8, 4))
	for i := range src.Pix {
		src.Pix[i] = byte(i * 7)
	}
	in := writePNG(t, dir, "img.png", src)
	if r := runBPX(t, nil, "texture", "import", "--mipmaps", "3", in); r.Code != exitOK || r.Stderr != "" {
		t.Fatalf("import: exit %d, %q", r.Code, r.Stderr)
	}
	tex := readTextureFile(t, filepath.Join(dir, "img.bpx"))
	if tex.Format != texture.FormatRGBA || tex.Width() != 8 || tex.Height() != 4 || tex.MipMaps != 3 || !bytes.Equal(tex.Pix, src.Pix) {
		t.Fatalf("imported %v", tex.TypeExt)
	}
	out := filepath.Join(dir, "back.png")
	if r := runBPX(t, nil, "texture", "export", filepath.Join(dir, "img.bpx"), "-o", out); r.Code != exitOK {
		t.Fatalf("export: exit %d, %q", r.Code, r.Stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 4; y++ {
		for x := 0; x < 8; x++ {
			if got, want := color.NRGBAModel.Convert(back.At(x, y)), src.NRGBAAt(x, y); got != want {
				t.Fatalf("(%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

func TestTextureImportFormats(t *testing.T) {
	dir := t.TempDir()
	grey := image.NewGray(image.Rect(0, 0, 2, 2))
	opaque := image.NewRGBA(image.Rect(0, 0, 2, 2))
	for i := range opaque.Pix {
		opaque.Pix[i] = 0xFF
	}
	for _, c := range []struct {
		img  image.Image
		args []string
		want texture.Format
	}{
		{grey, nil, texture.FormatGreyScale},
		{opaque, nil, texture.FormatRGB},
		{opaque, []string{"--format", "float"}, texture.FormatFloat},
		{grey, []string{"--format", "rgba", "--raw"}, texture.FormatRGBA},
	} {
		in := writePNG(t, dir, "in.png", c.img)
		out := filepath.Join(dir, "out.bpx")
		args := append([]string{"texture", "import", "-o", out}, c.args...)
		if r := runBPX(t, nil, append(args, in)...); r.Code != exitOK {
			t.Fatalf("%v: exit %d, %q", c.args, r.Code, r.Stderr)
		}
		if tex := readTextureFile(t, out); tex.Format != c.want {
			t.Errorf("%v: format %v, want %v", c.args, tex.Format, c.want)
		}
	}
}

func TestTextureCubeMap(t *testing.T) {
	dir := t.TempDir()
	var faces []string
	for i := 0; i < 6; i++ {
		g := image.NewGray(image.Rect(0, 0, 4, 4))
		for j := range g.Pix {
			g.Pix[j] = byte(40 * i)
		}
		faces = append(faces, writePNG(t, dir, "face"+string(rune('0'+i))+".png", g))
	}
	out := filepath.Join(dir, "cube.bpx")
	if r := runBPX(t, nil, append([]string{"texture", "import", "--cubemap", "-o", out}, faces...)...); r.Code != exitOK {
		t.Fatalf("import: exit %d, %q", r.Code, r.Stderr)
	}
	tex := readTextureFile(t, out)
	if tex.Layers() != 6 || tex.Flags != texture.FlagCubeMap {
		t.Fatalf("cube map %v", tex.TypeExt)
	}
	r := runBPX(t, nil, "texture", "export", "--layer", "5", "-o", "-", out)
	if r.Code != exitOK {
		t.Fatalf("export: exit %d, %q", r.Code, r.Stderr)
	}
	img, err := png.Decode(strings.NewReader(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	if g := color.GrayModel.Convert(img.At(1, 1)).(color.Gray); g.Y != 200 {
		t.Errorf("face 5 pixel %v, want 200", g)
	}
}

func TestTextureErrors(t *testing.T) {
	dir := t.TempDir()
	npot := writePNG(t, dir, "npot.png", image.NewGray(image.Rect(0, 0, 300, 256)))
	notPNG := filepath.Join(dir, "x.png")
	os.WriteFile(notPNG, []byte("not a png"), 0o644)
	good := writePNG(t, dir, "good.png", image.NewGray(image.Rect(0, 0, 2, 2)))
	if r := runBPX(t, nil, "texture", "import", good); r.Code != exitOK {
		t.Fatal(r.Stderr)
	}
	notTexture := filepath.Join(dir, "m.bpx")
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('M')
	w.Close()
	os.WriteFile(notTexture, buf.Bytes(), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"texture", "import", npot}, exitFail, "width 300 is not a power of two from 2 to 65536: resize or pad the image to 512"},
		{[]string{"texture", "import", notPNG}, exitFail, "not a readable PNG"},
		{[]string{"texture", "import", filepath.Join(dir, "missing.png")}, exitFail, "no such file"},
		{[]string{"texture", "import", "--cubemap", good}, exitFail, "a cube map needs 6 images, got 1"},
		{[]string{"texture", "export", filepath.Join(dir, "good.bpx"), "--layer", "1"}, exitFail, "layer 1 out of range: the texture has 1 layers"},
		{[]string{"texture", "export", notTexture}, exitFail, "type 'M' is not a texture"},
		{[]string{"texture", "export", notPNG}, exitFail, "x.png"},
	} {
		r := runBPX(t, nil, c.args...)
		if r.Code != c.code || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.Code, r.Stderr, c.code, c.msg)
		}
		checkOneLineError(t, r)
	}
	if _, err := os.Stat(filepath.Join(dir, "npot.bpx")); err == nil {
		t.Error("a failed import left an output file")
	}
	for _, args := range [][]string{
		{"texture"}, {"texture", "convert"}, {"texture", "import"}, {"texture", "export"},
		{"texture", "import", "--format", "cmyk", good}, {"texture", "import", "--mipmaps", "256", good}, {"texture", "import", "-"},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%q)", args, r.Code, exitUsage, r.Stderr)
		}
	}
}
