package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/texture"
)

// textureFormats maps --format names to formats; "auto" is 0.
var textureFormats = map[string]texture.Format{
	"auto": 0, "rgb": texture.FormatRGB, "rgba": texture.FormatRGBA,
	"grey": texture.FormatGreyScale, "gray": texture.FormatGreyScale, "float": texture.FormatFloat,
}

// textureImportFlags are the flags of "bpx texture import".
type textureImportFlags struct {
	out, format                   string
	mipmaps                       uint
	compressed, cubemap, rawPixel bool
}

func setupTextureImport(fs *flag.FlagSet) func(*env, []string) int {
	var f textureImportFlags
	fs.StringVar(&f.out, "o", "", "write the texture to `OUT` (default: the first input with .bpx; - for standard output)")
	fs.StringVar(&f.format, "format", "auto", "store the pixels as `auto|rgb|rgba|grey|float` (grey may be spelt gray); auto picks grey for grey PNGs, rgb for opaque ones, else rgba")
	fs.UintVar(&f.mipmaps, "mipmaps", 0, "number `N` of mip maps the loader should generate (0-255)")
	fs.BoolVar(&f.compressed, "compressed", false, "set the Compressed flag (compress on the GPU when loading)")
	fs.BoolVar(&f.cubemap, "cubemap", false, "make a cube map of 6 inputs (+X, -X, +Y, -Y, +Z, -Z)")
	fs.BoolVar(&f.rawPixel, "raw", false, "store the pixels uncompressed (default: xz above 64 KiB, like the reference)")
	return f.run
}

func (f *textureImportFlags) run(e *env, in []string) int {
	if len(in) == 0 {
		return e.usageError("want at least one IN.png")
	}
	format, known := textureFormats[f.format]
	if !known {
		return e.usageError("unknown --format %q", f.format)
	}
	if f.mipmaps > 255 {
		return e.usageError("--mipmaps %d above 255", f.mipmaps)
	}
	dst := f.out
	if dst == "" {
		if in[0] == "-" {
			return e.usageError("-o is required when reading standard input")
		}
		dst = replaceExt(in[0], ".bpx")
	}
	imgs := make([]image.Image, len(in))
	for i, name := range in {
		img, err := readPNG(e, name)
		if err != nil {
			return e.fail(err)
		}
		imgs[i] = img
	}
	if format == 0 {
		format = autoFormat(imgs[0])
	}
	var flags texture.Flags
	switch {
	case f.cubemap:
		flags |= texture.FlagCubeMap
	case len(imgs) > 1:
		flags |= texture.FlagArray
	}
	if f.compressed {
		flags |= texture.FlagCompressed
	}
	tex, err := texture.FromImages(imgs, format, flags)
	if err != nil {
		return e.fail(err)
	}
	tex.MipMaps = uint8(f.mipmaps)
	o := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: bpx.DefaultThreshold}
	if f.rawPixel {
		o = bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}
	}
	if err := saveOutput(e, dst, func(w io.Writer) error { return texture.Encode(w, tex, o) }); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// autoFormat picks GreyScale for grey images, RGB for opaque ones and RGBA
// otherwise.
func autoFormat(img image.Image) texture.Format {
	switch img.(type) {
	case *image.Gray, *image.Gray16:
		return texture.FormatGreyScale
	}
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return texture.FormatRGB
	}
	return texture.FormatRGBA
}

// textureExportFlags are the flags of "bpx texture export".
type textureExportFlags struct {
	out   string
	layer int
}

func setupTextureExport(fs *flag.FlagSet) func(*env, []string) int {
	var f textureExportFlags
	fs.StringVar(&f.out, "o", "", "write the PNG to `OUT` (default: the input with .png; - for standard output)")
	fs.IntVar(&f.layer, "layer", 0, "export layer `N` (counting from 0; cube map faces are +X, -X, +Y, -Y, +Z, -Z)")
	return f.run
}

func (f *textureExportFlags) run(e *env, in []string) int {
	if len(in) != 1 {
		return e.usageError("want exactly one IN.bpx, got %d arguments", len(in))
	}
	tex, err := readTexture(in[0])
	if err != nil {
		return e.fail(err)
	}
	if f.layer < 0 || f.layer >= tex.Layers() {
		return e.fail(fmt.Errorf("%s: layer %d out of range: the texture has %d layers (0 to %d)", in[0], f.layer, tex.Layers(), tex.Layers()-1))
	}
	img, err := tex.Image(f.layer)
	if err != nil {
		return e.fail(err)
	}
	dst := f.out
	if dst == "" {
		dst = replaceExt(in[0], ".png")
	}
	if err := saveOutput(e, dst, func(w io.Writer) error { return png.Encode(w, img) }); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// readPNG decodes the named PNG, "-" meaning standard input.
func readPNG(e *env, name string) (image.Image, error) {
	var r io.Reader = e.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	img, err := png.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable PNG: %w", name, err)
	}
	return img, nil
}

// readTexture opens the named BPX file and reads its texture.
func readTexture(name string) (*texture.Texture, error) {
	rc, err := bpx.OpenReader(name)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, err // names the file already
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	tex, err := texture.Read(&rc.Reader)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tex, nil
}

// saveOutput writes a file atomically with bpx.SaveFile, or to standard
// output for "-".
func saveOutput(e *env, name string, write func(io.Writer) error) error {
	if name != "-" {
		return saveFile(name, func(_ context.Context, w io.Writer) error { return write(w) })
	}
	var buf bytes.Buffer // nothing reaches stdout unless the whole output succeeds
	if err := write(&buf); err != nil {
		return err
	}
	_, err := e.Stdout.Write(buf.Bytes())
	return err
}

// replaceExt returns name with its extension replaced by ext.
func replaceExt(name, ext string) string {
	return strings.TrimSuffix(name, filepath.Ext(name)) + ext
}
