package xzenc

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	uxz "github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// sourceSections returns the first 8 MiB of $GOROOT/src's .go files cut
// into 1 MiB sections, like a package's data sections.
func sourceSections(b *testing.B) [][]byte {
	var all []byte
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(all) >= 8<<20 {
			return filepath.SkipDir
		}
		if !d.IsDir() && filepath.Ext(p) == ".go" {
			data, _ := os.ReadFile(p)
			all = append(all, data...)
		}
		return nil
	})
	if len(all) < 8<<20 {
		b.Skip("GOROOT/src not found")
	}
	var secs [][]byte
	for i := 0; i < 8; i++ {
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
