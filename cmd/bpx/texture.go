package main

import (
	"bytes"
	"errors"
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

var textureCmd = &command{
	Name:    "texture",
	Summary: "convert PNG images to BPX textures and back",
	Usage:   "import [flags] IN.png... | export [flags] IN.bpx",
}

// The subcommands, for their flag sets and one-line errors.
var (
	textureImportCmd = &command{
		Name:  "texture import",
		Usage: "[-o OUT.bpx] [-format auto|rgb|rgba|grey|float] [-mipmaps N] [-compressed] [-cubemap] [-raw] IN.png...",
	}
	textureExportCmd = &command{
		Name:  "texture export",
		Usage: "[-o OUT.png] [-layer N] IN.bpx",
	}
)

func init() {
	textureCmd.Run = runTexture
	register(textureCmd)
}

func runTexture(e *env, args []string) int {
	if len(args) == 0 {
		return textureCmd.usageError(e, "want a subcommand: import or export")
	}
	switch args[0] {
	case "import":
		return runTextureImport(e, args[1:])
	case "export":
		return runTextureExport(e, args[1:])
	}
	return textureCmd.usageError(e, "unknown subcommand %q (want import or export)", args[0])
}

// textureFormats maps -format names to formats; "auto" is 0.
var textureFormats = map[string]texture.Format{
	"auto": 0, "rgb": texture.FormatRGB, "rgba": texture.FormatRGBA,
	"grey": texture.FormatGreyScale, "gray": texture.FormatGreyScale, "float": texture.FormatFloat,
}

func runTextureImport(e *env, args []string) int {
	c := textureImportCmd
	fs := c.newFlagSet(e)
	out := fs.String("o", "", "output file (default: the first input with .bpx; - for standard output)")
	format := fs.String("format", "auto", "pixel format: auto (grey for grey PNGs, rgb for opaque ones, else rgba), rgb, rgba, grey or float")
	mipmaps := fs.Uint("mipmaps", 0, "number of mip maps the loader should generate (0-255)")
	compressed := fs.Bool("compressed", false, "set the Compressed flag (compress on the GPU when loading)")
	cubemap := fs.Bool("cubemap", false, "make a cube map of 6 inputs (+X, -X, +Y, -Y, +Z, -Z)")
	rawSection := fs.Bool("raw", false, "store the pixels uncompressed (default: xz above 64 KiB, like the reference)")
	in, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(in) == 0 {
		return c.usageError(e, "want at least one IN.png")
	}
	f, known := textureFormats[*format]
	if !known {
		return c.usageError(e, "unknown -format %q", *format)
	}
	if *mipmaps > 255 {
		return c.usageError(e, "-mipmaps %d above 255", *mipmaps)
	}
	dst := *out
	if dst == "" {
		if in[0] == "-" {
			return c.usageError(e, "-o is required when reading standard input")
		}
		dst = replaceExt(in[0], ".bpx")
	}
	imgs := make([]image.Image, len(in))
	for i, name := range in {
		img, err := readPNG(e, name)
		if err != nil {
			return c.fail(e, err)
		}
		imgs[i] = img
	}
	if f == 0 {
		f = autoFormat(imgs[0])
	}
	var flags texture.Flags
	switch {
	case *cubemap:
		flags |= texture.FlagCubeMap
	case len(imgs) > 1:
		flags |= texture.FlagArray
	}
	if *compressed {
		flags |= texture.FlagCompressed
	}
	tex, err := texture.FromImages(imgs, f, flags)
	if err != nil {
		return c.fail(e, err)
	}
	tex.MipMaps = uint8(*mipmaps)
	o := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32, Threshold: bpx.DefaultThreshold}
	if *rawSection {
		o = bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}
	}
	if err := saveOutput(e, dst, func(w io.Writer) error { return texture.Encode(w, tex, o) }); err != nil {
		return c.fail(e, err)
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

func runTextureExport(e *env, args []string) int {
	c := textureExportCmd
	fs := c.newFlagSet(e)
	out := fs.String("o", "", "output PNG (default: the input with .png; - for standard output)")
	layer := fs.Int("layer", 0, "layer to export (0-based; cube map faces are +X, -X, +Y, -Y, +Z, -Z); Float textures become 16-bit grey PNGs clamped to [0, 1]")
	in, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(in) != 1 {
		return c.usageError(e, "want exactly one IN.bpx, got %d arguments", len(in))
	}
	tex, err := readTexture(in[0])
	if err != nil {
		return c.fail(e, err)
	}
	if *layer < 0 || *layer >= tex.Layers() {
		return c.fail(e, fmt.Errorf("%s: layer %d out of range: the texture has %d layers (0 to %d)", in[0], *layer, tex.Layers(), tex.Layers()-1))
	}
	img, err := tex.Image(*layer)
	if err != nil {
		return c.fail(e, err)
	}
	dst := *out
	if dst == "" {
		dst = replaceExt(in[0], ".png")
	}
	if err := saveOutput(e, dst, func(w io.Writer) error { return png.Encode(w, img) }); err != nil {
		return c.fail(e, err)
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
		return bpx.SaveFile(name, write)
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
