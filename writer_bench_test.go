package bpx_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/klauspost/compress/zlib"
)

// benchCorpus returns n bytes of mixed asset-like data: text, vertex floats
// and a little incompressible noise.
func benchCorpus(n int) []byte {
	b := make([]byte, 0, n)
	b = append(b, textData(n*5/8, 21)...)
	for i := 0; len(b) < n*15/16; i++ {
		x, y := float64(i%1024), float64(i/1024)
		for _, f := range []float64{x, y, math.Sin(x/40) * math.Cos(y/40) * 30, 0, 0, 1, x / 1024, y / 512} {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
	}
	b = append(b, randomData(n, 21)...)
	return b[:n]
}

// BenchmarkWriteZlib compares writing one zlib section with the raw
// klauspost zlib compression of the same data (target: bpx ≥ 0.9× raw).
func BenchmarkWriteZlib(b *testing.B) {
	data := benchCorpus(4 << 20)
	b.Run("raw-klauspost", func(b *testing.B) {
		zw := zlib.NewWriter(io.Discard)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			zw.Reset(io.Discard)
			zw.Write(data)
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, k := range []bpx.Checksum{bpx.ChecksumNone, bpx.ChecksumWeak, bpx.ChecksumCRC32} {
		b.Run("bpx-checksum-"+k.String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				w := bpx.NewWriter(io.Discard)
				s, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressZlib, Checksum: k})
				if err != nil {
					b.Fatal(err)
				}
				s.Write(data)
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriteXZSections writes 16 xz sections of 128 KiB with one worker
// and with GOMAXPROCS workers (target: scales with the cores).
func BenchmarkWriteXZSections(b *testing.B) {
	const n, size = 16, 128 << 10
	data := benchCorpus(n * size)
	for _, c := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("concurrency-%d", c), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				w := bpx.NewWriter(io.Discard, bpx.WithConcurrency(c))
				for i := range n {
					s, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32})
					if err != nil {
						b.Fatal(err)
					}
					s.Write(data[i*size : (i+1)*size])
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
