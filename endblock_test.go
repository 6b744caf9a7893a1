package bpx_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gobpx/bpx"
)

// TestEndBlock: a section writer's EndBlock cuts xz blocks where the data
// written so far ends, besides BlockSize's; each block reads alone.
func TestEndBlock(t *testing.T) {
	data := bytes.Repeat([]byte("objects of a package, cut where they end. "), 8000)
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	sw, err := w.CreateSection(1, bpx.SectionOptions{Compression: bpx.CompressXZ, BlockSize: 200 << 10})
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, c := range []int{1000, 40_000, 40_000, 300_000} {
		sw.Write(data[at:c])
		sw.(bpx.BlockEnder).EndBlock()
		at = c
	}
	sw.Write(data[at:])
	// Not an xz section: EndBlock does nothing.
	zw, _ := w.CreateSection(2, bpx.SectionOptions{Compression: bpx.CompressZlib})
	zw.Write(data)
	zw.(bpx.BlockEnder).EndBlock()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := r.Sections[0].Blocks()
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, b := range blocks {
		sizes = append(sizes, b.Size)
		got, err := r.Sections[0].AppendBlock(nil, b)
		if err != nil || !bytes.Equal(got, data[b.Offset:b.Offset+b.Size]) {
			t.Fatalf("block %+v: %v", b, err)
		}
	}
	want := []int64{1000, 39_000, 200 << 10, 300_000 - 40_000 - 200<<10, int64(len(data)) - 300_000}
	if fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Errorf("blocks of %v bytes, want %v", sizes, want)
	}
	if err := r.Sections[1].Verify(); err != nil {
		t.Fatal(err)
	}
}
