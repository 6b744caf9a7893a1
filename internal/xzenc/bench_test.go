package xzenc

import (
	"bytes"
	"io"
	"testing"

	"github.com/gobpx/bpx/internal/gocorpus"

	uxz "github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// sourceSections returns 8 MiB of Go source cut into 1 MiB sections, like
// a package's data sections.
func sourceSections(b *testing.B) [][]byte {
	all := gocorpus.Source(8 << 20)
	var secs [][]byte
	for i := range 8 {
		secs = append(secs, all[i<<20:(i+1)<<20])
	}
	return secs
}

// BenchmarkEncode compares this encoder with ulikunitz/xz's hash-table
// encoder (the baseline: what bpx used before) on the same sections, one
// core each.
func BenchmarkEncode(b *testing.B) {
	secs := sourceSections(b)
	b.Run("xzenc", func(b *testing.B) {
		b.SetBytes(8 << 20)
		var e Encoder
		var out bytes.Buffer
		size := 0
		for b.Loop() {
			size = 0
			for _, s := range secs {
				out.Reset()
				if err := e.Encode(&out, s, 1<<20); err != nil {
					b.Fatal(err)
				}
				size += out.Len()
			}
		}
		b.ReportMetric(float64(size)/float64(8<<20), "ratio")
	})
	b.Run("baseline-ulikunitz", func(b *testing.B) {
		b.SetBytes(8 << 20)
		var out bytes.Buffer
		size := 0
		for b.Loop() {
			size = 0
			for _, s := range secs {
				out.Reset()
				w, err := uxz.WriterConfig{DictCap: 1 << 20, NoCheckSum: true, Matcher: lzma.HashTable4}.NewWriter(&out)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(w, bytes.NewReader(s))
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				size += out.Len()
			}
		}
		b.ReportMetric(float64(size)/float64(8<<20), "ratio")
	})
}
