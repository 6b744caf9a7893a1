package sign_test

import (
	"bytes"
	"crypto/sha256"
	"io"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// benchFile returns a container of one raw 32 MiB section.
func benchFile(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	if err := w.WriteSection(1, bpx.SectionOptions{}, randomBytes(3, 32<<20)); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkSign signs a 32 MiB file (hash pass, then copy checked
// against a CRC-32C); for the ratios, "copy" reads and writes it as Sign
// does without hashing, and "sha256" hashes it once in 64 KiB chunks.
func BenchmarkSign(b *testing.B) {
	file := benchFile(b)
	k := testKey(b, "bench")
	b.Run("sign", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			if err := sign.Sign(io.Discard, bytes.NewReader(file), int64(len(file)), k); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			for p := file; len(p) > 0; p = p[min(len(p), sign.ChunkSize):] {
				sha256.Sum256(p[:min(len(p), sign.ChunkSize)])
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		buf := make([]byte, 1<<20)
		for b.Loop() {
			if _, err := io.CopyBuffer(io.Discard, io.NewSectionReader(bytes.NewReader(file), 0, int64(len(file))), buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkVerifiedReadAt reads a signed 32 MiB file in sequential 32 KiB
// reads through a Verified ("verified") and directly ("raw").
func BenchmarkVerifiedReadAt(b *testing.B) {
	k := testKey(b, "bench")
	signed := signBytes(b, benchFile(b), k)
	v, err := open(signed, ring(k))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		r    io.ReaderAt
	}{{"verified", v}, {"raw", bytes.NewReader(signed)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(signed)))
			p := make([]byte, 32<<10)
			for b.Loop() {
				for off := int64(0); off < int64(len(signed)); off += int64(len(p)) {
					if _, err := c.r.ReadAt(p, off); err != nil && err != io.EOF {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
