package texture_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/texture"
)

// A PNG becomes a BPX texture and back, with the standard library's codecs.
func Example() {
	// A 4x2 PNG with a translucent pixel.
	src := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	src.SetNRGBA(3, 1, color.NRGBA{R: 255, G: 128, A: 64})
	var pngIn bytes.Buffer
	if err := png.Encode(&pngIn, src); err != nil {
		log.Fatal(err)
	}

	// PNG -> texture -> BPX file.
	img, err := png.Decode(&pngIn)
	if err != nil {
		log.Fatal(err)
	}
	tex, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := texture.Encode(&file, tex, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}); err != nil {
		log.Fatal(err)
	}

	// BPX file -> texture -> PNG.
	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(texture.DescribeTypeExt(r.Header.TypeExt))
	back, err := texture.Read(r)
	if err != nil {
		log.Fatal(err)
	}
	layer, err := back.Image(0)
	if err != nil {
		log.Fatal(err)
	}
	var pngOut bytes.Buffer
	if err := png.Encode(&pngOut, layer); err != nil {
		log.Fatal(err)
	}
	final, err := png.Decode(&pngOut)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(final.Bounds(), color.NRGBAModel.Convert(final.At(3, 1)))
	// Output:
	// texture 4x2 RGBA, 1 layer, flags 0, 0 mip maps
	// (0,0)-(4,2) {255 128 0 64}
}

// A side that is not a power of two is refused with advice.
func ExampleFromImage_size() {
	_, err := texture.FromImage(image.NewGray(image.Rect(0, 0, 640, 512)), texture.FormatGreyScale)
	fmt.Println(err)
	// Output:
	// texture: width 640 is not a power of two from 2 to 65536: resize or pad the image to 1024: texture: invalid texture
}

func ExampleParseTypeExt() {
	ext, err := texture.ParseTypeExt([16]byte{6, 0, 0x77, 0x41, 2})
	fmt.Println(ext, err)
	// Output:
	// 256x256 RGB, 6 layers, flags CubeMap, 2 mip maps <nil>
}
