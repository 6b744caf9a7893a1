package xzdec

import (
	"bytes"
	"io"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	"github.com/gobpx/bpx/internal/xzenc"
	mxz "github.com/mikelolasagasti/xz"
)

// sections returns 8 MiB of Go source as 1 MiB .xz streams written by
// xzenc (what "bpx pack" stores).
func sections(b *testing.B) [][]byte {
	all := gocorpus.Source(8 << 20)
	var enc xzenc.Encoder
	var secs [][]byte
	for i := range 8 {
		var z bytes.Buffer
		enc.Encode(&z, all[i<<20:(i+1)<<20], 1<<20)
		secs = append(secs, z.Bytes())
	}
	return secs
}

// BenchmarkDecode compares this decoder (Decode; Reader, the streaming
// mode; DecodeTo in 32 KiB steps) with the xi2-lineage streaming decoder
// bpx uses otherwise (the baseline), into a reused buffer.
func BenchmarkDecode(b *testing.B) {
	secs := sections(b)
	out := make([]byte, 0, 1<<20+4096) // room for bytes.Buffer.ReadFrom's MinRead
	b.Run("xzdec", func(b *testing.B) {
		b.SetBytes(8 << 20)
		var d Decoder
		for b.Loop() {
			for _, z := range secs {
				var err error
				if out, err = d.Decode(out[:0], z, 1<<20); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("reader", func(b *testing.B) {
		b.SetBytes(8 << 20)
		var r Reader
		for b.Loop() {
			for _, z := range secs {
				r.Reset(bytes.NewReader(z), 1<<20)
				buf := bytes.NewBuffer(out[:0])
				if _, err := io.Copy(buf, &r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("steps", func(b *testing.B) {
		b.SetBytes(8 << 20)
		var d Decoder
		for b.Loop() {
			for _, z := range secs {
				d.Start(out[:0], z, 1<<20)
				for n := 32 << 10; !d.Done(); n += 32 << 10 {
					if _, err := d.DecodeTo(n); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("baseline-xi2", func(b *testing.B) {
		b.SetBytes(8 << 20)
		r, err := mxz.NewReader(bytes.NewReader(secs[0]), 1<<20)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			for _, z := range secs {
				if err := r.Reset(bytes.NewReader(z)); err != nil {
					b.Fatal(err)
				}
				buf := bytes.NewBuffer(out[:0])
				if _, err := io.Copy(buf, r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
