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

// BenchmarkTrustedRead opens a signed file of 100,000 chunks (of 4 KiB,
// so that the file is 400 MB rather than 6.4 GB; the manifest is what it
// would be at 64 KiB chunks) and reads 100 bytes of it, with the paged
// manifest this package writes and with a flat one (every chunk digest in
// the manifest, as before pages), and reports the bytes of the signature
// section each trusted read fetched (sig-bytes/op, goal: at most 256 KiB).
func BenchmarkTrustedRead(b *testing.B) {
	defer sign.SetChunkSize(4 << 10)()
	const chunks = 100_000
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	if err := w.WriteSection(1, bpx.SectionOptions{}, bytes.Repeat([]byte("0123456789abcdef"), chunks*4096/16)); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	k := testKey(b, "bench")
	for _, mode := range []struct {
		name  string
		pages uint32
	}{{"paged", sign.PageChunks}, {"flat", 1 << 30}} {
		b.Run(mode.name, func(b *testing.B) {
			restore := sign.SetPageChunks(mode.pages)
			signed := signBytes(b, buf.Bytes(), k)
			restore()
			lay := parseFileLayout(b, signed)
			c := &rangeCounter{r: bytes.NewReader(signed), from: lay.end, to: lay.sigEnd}
			p := make([]byte, 100)
			i := int64(0)
			for b.Loop() {
				v, err := sign.Open(c, int64(len(signed)), ring(k))
				if err != nil {
					b.Fatal(err)
				}
				i = (i + 7919) % chunks
				if _, err := v.ReadAt(p, lay.start+i*4096); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.n.Load())/float64(b.N), "sig-bytes/op")
		})
	}
}
