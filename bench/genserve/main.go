// Command genserve writes the inputs of bench/serve-vs-ls.sh and
// bench/index.sh into DIR: million.bpx, a package of 1,000,000 small
// objects in one directory (assets/); tex2048.bpx, a 2048×2048 RGBA
// texture of smooth gradients with a little noise (like a painted texture:
// PNG neither trivial nor incompressible); tenk.bpx, 10,000 objects as
// million.bpx's; dirs.bpx, 1,000,000 objects in 1,000 directories of
// 1,000 (assets/d000/obj0000000 on).
//
// Usage: go run ./bench/genserve DIR [million|tex|tenk|dirs]...
// (default: million tex)
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
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: genserve DIR [million|tex|tenk|dirs]...")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	what := os.Args[2:]
	if len(what) == 0 {
		what = []string{"million", "tex"}
	}
	for _, w := range what {
		switch w {
		case "million":
			objects(filepath.Join(dir, "million.bpx"), dir, 1_000_000, flat)
		case "tenk":
			objects(filepath.Join(dir, "tenk.bpx"), dir, 10_000, flat)
		case "dirs":
			objects(filepath.Join(dir, "dirs.bpx"), dir, 1_000_000, func(i int) string { return fmt.Sprintf("assets/d%03d/obj%07d", i/1000, i) })
		case "tex":
			tex(filepath.Join(dir, "tex2048.bpx"))
		default:
			fmt.Fprintf(os.Stderr, "genserve: unknown input %q\n", w)
			os.Exit(2)
		}
	}
}

// flat names object i assets/obj%07d.
func flat(i int) string { return fmt.Sprintf("assets/obj%07d", i) }

// objects writes n objects of 8 bytes (object i holds i), object i named
// name(i).
func objects(file, tmp string, n int, name func(int) string) {
	f, err := os.Create(file)
	if err != nil {
		fail(err)
	}
	w := pack.NewWriter(f, pack.WithCompression(bpx.CompressZlib), pack.WithTempDir(tmp))
	var content [8]byte
	for i := range n {
		ow, err := w.CreateSized(name(i), 8)
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
