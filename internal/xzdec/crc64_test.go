package xzdec

import (
	"hash/crc64"
	"math/rand/v2"
	"testing"
)

// TestCRC64 compares crc64Update with hash/crc64 on every length up to
// 300 and on pieces of a longer buffer, chained.
func TestCRC64(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	buf := make([]byte, 100000)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	tab := crc64.MakeTable(crc64.ECMA)
	for n := range 300 {
		if got, want := crc64Update(0, buf[:n]), crc64.Checksum(buf[:n], tab); got != want {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
	var got uint64
	for p := buf; len(p) > 0; {
		k := min(len(p), rng.IntN(5000))
		got = crc64Update(got, p[:k])
		p = p[k:]
	}
	if want := crc64.Checksum(buf, tab); got != want {
		t.Fatalf("in pieces: %x, want %x", got, want)
	}
}

func BenchmarkCRC64(b *testing.B) {
	buf := make([]byte, 1<<20)
	tab := crc64.MakeTable(crc64.ECMA)
	b.Run("slicing16", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			crc64Update(0, buf)
		}
	})
	b.Run("baseline-hash/crc64", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			crc64.Checksum(buf, tab)
		}
	})
}
