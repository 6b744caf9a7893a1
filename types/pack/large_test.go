package pack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gobpx/bpx"
)

// TestMillionObjects writes and opens a package of 1,000,000 objects (the
// reference SDK cannot save more than 3,276 with its default options).
func TestMillionObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("large test: skipped with -short")
	}
	const n = 1_000_000
	name := func(i int) string { return fmt.Sprintf("d%03d/obj%07d", i%1000, i) }
	file := filepath.Join(t.TempDir(), "million.bpx")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	w := NewWriter(f, WithCompression(bpx.CompressZlib), WithTempDir(t.TempDir()))
	var content [8]byte
	for i := range n {
		ow, err := w.CreateSized(name(i), 8)
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint64(content[:], uint64(i))
		ow.Write(content[:])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Logf("wrote %d objects in %v", n, time.Since(t0))
	t0 = time.Now()
	p, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Objects()) != n {
		t.Fatalf("%d objects", len(p.Objects()))
	}
	t.Logf("opened in %v", time.Since(t0))
	for _, i := range []int{0, 1, 4095, 500_000, n - 1} {
		b, err := p.ReadFile(name(i))
		if err != nil || binary.LittleEndian.Uint64(b) != uint64(i) {
			t.Errorf("object %d = %x, %v", i, b, err)
		}
	}
	ents, err := p.ReadDir("d999")
	if err != nil || len(ents) != n/1000 {
		t.Errorf("ReadDir(d999): %d entries, %v", len(ents), err)
	}
	if err := p.Verify(); err != nil {
		t.Error(err)
	}
	t.Logf("read, listed and verified in %v", time.Since(t0))
}

// bigGen generates a deterministic stream: 8-byte little-endian offsets of
// every 8-byte word, so any misplaced byte is detected.
type bigGen struct{ off, size int64 }

func (g *bigGen) Read(b []byte) (int, error) {
	if g.off >= g.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), g.size-g.off)) &^ 7
	if n == 0 {
		n = int(min(int64(len(b)), g.size-g.off))
	}
	var w [8]byte
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(w[:], uint64(g.off+int64(i)))
		copy(b[i:n], w[:])
	}
	g.off += int64(n)
	return n, nil
}

// TestObjectOver4GiB round-trips an object larger than 4 GiB, stored raw
// and spanning several sections, and a small object after it.
func TestObjectOver4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("large test: skipped with -short")
	}
	const size = 4<<30 + 12345*8
	tmp := t.TempDir()
	// The package and the writer's spool each hold the object once.
	if free, ok := freeDisk(tmp); ok && free < 3*size {
		t.Skipf("needs about %d GB of free disk in %s, has %d GB", 3*size>>30, tmp, free>>30)
	}
	file := filepath.Join(tmp, "big.bpx")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	w := NewWriter(f, WithCompression(bpx.CompressNone), WithChecksum(bpx.ChecksumNone), WithSectionSize(1<<30), WithTempDir(tmp))
	ow, err := w.CreateSized("huge.bin", size)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	if _, err := io.CopyBuffer(ow, &bigGen{size: size}, buf); err != nil {
		t.Fatal(err)
	}
	tail, _ := w.Create("tail.txt")
	io.WriteString(tail, "after the big one")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Logf("wrote in %v", time.Since(t0))
	t0 = time.Now()
	p, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if o := p.Objects()[0]; o.Size != size || len(p.Reader.SectionsOfType(SectionData)) != 6 {
		t.Fatalf("huge.bin size %d, %d data sections", o.Size, len(p.Reader.SectionsOfType(SectionData)))
	}
	if b, err := p.ReadFile("tail.txt"); err != nil || string(b) != "after the big one" {
		t.Errorf("tail.txt = %q, %v", b, err)
	}
	r, err := p.Open("huge.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Random access across the 4 GiB boundary, then a full sequential check.
	ra := r.(io.ReaderAt)
	for _, off := range []int64{0, 1<<30 - 8, 4<<30 - 16, size - 8} {
		var b [16]byte
		n, _ := ra.ReadAt(b[:], off)
		for i := 0; i+8 <= n; i += 8 {
			if got := binary.LittleEndian.Uint64(b[i:]); got != uint64(off)+uint64(i) {
				t.Fatalf("word at %d = %d", off+int64(i), got)
			}
		}
	}
	want := &bigGen{size: size}
	got := make([]byte, 1<<20)
	exp := make([]byte, 1<<20)
	var total int64
	for {
		n, err := io.ReadFull(r, got)
		if n > 0 {
			io.ReadFull(want, exp[:n])
			if !bytes.Equal(got[:n], exp[:n]) {
				t.Fatalf("content differs near offset %d", total)
			}
			total += int64(n)
		}
		if err != nil {
			break
		}
	}
	if total != size {
		t.Errorf("read %d bytes, want %d", total, int64(size))
	}
	t.Logf("read back in %v", time.Since(t0))
}
