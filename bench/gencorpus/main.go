// Command gencorpus writes the synthetic benchmark corpus: 8 files of
// 16 MiB, 4 of ChaCha8 random bytes (stand-ins for already-compressed
// textures and sounds) and 4 float32 vertex arrays (position 3, normal 3,
// UV 2 per vertex over a 1024×512 heightfield: stand-ins for meshes).
//
// Usage: go run ./bench/gencorpus DIR
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

const fileSize = 16 << 20

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	for i := range 4 {
		rnd := rand.NewChaCha8([32]byte{byte(i)})
		b := make([]byte, fileSize)
		rnd.Read(b)
		write(filepath.Join(dir, fmt.Sprintf("random%d.bin", i)), b)
		write(filepath.Join(dir, fmt.Sprintf("mesh%d.vtx", i)), mesh(float64(i)))
	}
}

// mesh returns 1024×512 vertices of 8 float32 each (32 bytes): a smooth
// heightfield with its normals and texture coordinates.
func mesh(seed float64) []byte {
	const w, h = 1024, 512
	b := make([]byte, 0, fileSize)
	put := func(f float64) { b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(f))) }
	height := func(x, y float64) float64 {
		return 8*math.Sin(x/37+seed)*math.Cos(y/23) + 2*math.Sin(x/5.3+y/7.1+seed)
	}
	for y := range h {
		for x := range w {
			fx, fy := float64(x), float64(y)
			z := height(fx, fy)
			dx := height(fx+1, fy) - z
			dy := height(fx, fy+1) - z
			n := math.Sqrt(dx*dx + dy*dy + 1)
			put(fx * 0.5)
			put(fy * 0.5)
			put(z)
			put(-dx / n)
			put(-dy / n)
			put(1 / n)
			put(fx / w)
			put(fy / h)
		}
	}
	return b
}

func write(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gencorpus:", err)
	os.Exit(1)
}
