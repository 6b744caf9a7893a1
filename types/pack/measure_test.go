package pack

import (
	"bytes"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/gobpx/bpx/internal/gocorpus"
)

// TestMeasureSectionSize prints, for several target section sizes, the size
// of the GOROOT/src package, the time to pack it and the mean time to open
// the package and read one small object, the numbers behind
// DefaultSectionSize. It runs only with BPX_MEASURE=1.
func TestMeasureSectionSize(t *testing.T) {
	if os.Getenv("BPX_MEASURE") == "" {
		t.Skip("set BPX_MEASURE=1 to measure section sizes")
	}
	src := gocorpus.SrcDir()
	if src == "" {
		t.Skip("go env GOROOT unavailable")
	}
	var small []string
	fs.WalkDir(os.DirFS(src), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, _ := d.Info(); fi.Size() < 8<<10 && len(small) < 400 && len(p)%7 == 0 {
				small = append(small, p)
			}
		}
		return err
	})
	for _, size := range []int64{128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20} {
		var buf bytes.Buffer
		t0 := time.Now()
		w := NewWriter(&buf, WithSectionSize(size))
		if err := w.AddFS(os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		packTime := time.Since(t0)
		b := buf.Bytes()
		t0 = time.Now()
		for _, name := range small {
			p := openBytes(t, b)
			if _, err := p.ReadFile(name); err != nil {
				t.Fatal(err)
			}
		}
		read := time.Since(t0) / time.Duration(len(small))
		t.Logf("section %7d: package %d bytes, pack %v, open+ReadFile of a small file %v", size, len(b), packTime.Round(time.Millisecond), read.Round(10*time.Microsecond))
	}
}
