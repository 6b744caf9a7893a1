package bpx_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gobpx/bpx"
)

// TestXZWriterMemory writes xz sections of 12 and 20 MiB (once on either
// side of the 16 MiB where the writer switched encoders) and reads them
// back. The writer's heap must stay within the documented bound: spool
// threshold and memory limit of 1 MiB each, one encoder of at most
// 8.5 MiB, whatever the section size.
func TestXZWriterMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 32 MiB")
	}
	sizes := []int{12 << 20, 20 << 20}
	data := textData(sizes[1], 11)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	base := heapInUse()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak = max(peak, heapInUse())
			}
		}
	})
	w := bpx.NewWriter(f, bpx.WithTempDir(dir), bpx.WithSpoolThreshold(1<<20), bpx.WithMemoryLimit(1<<20), bpx.WithConcurrency(1))
	for i, n := range sizes {
		s, err := w.CreateSection(uint8(i), bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32})
		if err != nil {
			t.Fatal(err)
		}
		for p := data[:n]; len(p) > 0; p = p[min(64<<10, len(p)):] {
			if _, err := s.Write(p[:min(64<<10, len(p))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = w.Close()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	grew := int64(peak) - int64(base)
	t.Logf("heap grew by %.1f MiB", float64(grew)/(1<<20))
	if grew > 16<<20 {
		t.Errorf("heap grew by %d MiB while writing xz sections of 12 and 20 MiB", grew>>20)
	}
	runtime.KeepAlive(data)

	r, err := bpx.OpenReader(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, n := range sizes {
		s := r.Sections[i]
		if s.Flags&bpx.FlagXZ == 0 {
			t.Fatalf("section %d stored with flags %#x", i, s.Flags)
		}
		if got, err := s.Data(); err != nil || !bytes.Equal(got, data[:n]) {
			t.Errorf("section %d: %d bytes, %v", i, len(got), err)
		}
	}
}
