// Command genserve writes the inputs of bench/serve-vs-ls.sh into DIR:
// million.bpx, a package of 1,000,000 small objects in one directory
// (assets/), and tex2048.bpx, a 2048×2048 RGBA texture of smooth gradients
// with a little noise (like a painted texture: PNG neither trivial nor
// incompressible).
//
// Usage: go run ./bench/genserve DIR
package main

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genserve DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	million(filepath.Join(dir, "million.bpx"), dir)
	tex(filepath.Join(dir, "tex2048.bpx"))
}

// million writes 1,000,000 objects of 8 bytes, assets/obj0000000 on.
func million(name, tmp string) {
	f, err := os.Create(name)
	if err != nil {
		fail(err)
	}
	w := pack.NewWriter(f, pack.WithCompression(bpx.CompressZlib), pack.WithTempDir(tmp))
	var content [8]byte
	for i := range 1_000_000 {
		ow, err := w.CreateSized(fmt.Sprintf("assets/obj%07d", i), 8)
		if err != nil {
			fail(err)
		}
		binary.LittleEndian.PutUint64(content[:], uint64(i))
		if _, err := ow.Write(content[:]); err != nil {
			fail(err)
		}
	}
	if err := w.Close(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

// tex writes the 2048×2048 RGBA texture.
func tex(name string) {
	const n = 2048
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	rnd := rand.New(rand.NewChaCha8([32]byte{7}))
	for y := range n {
		for x := range n {
			noise := uint8(rnd.IntN(8))
			img.SetNRGBA(x, y, color.NRGBA{uint8(x / 8), uint8(y / 8), uint8((x+y)/16) + noise, 255 - uint8(x/16)})
		}
	}
	t, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		fail(err)
	}
	f, err := os.Create(name)
	if err != nil {
		fail(err)
	}
	if err := texture.Encode(f, t, bpx.SectionOptions{Compression: bpx.CompressXZ}); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genserve:", err)
	os.Exit(1)
}
