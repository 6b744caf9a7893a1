package sign

import (
	"errors"
	"testing"

	"github.com/gobpx/bpx"
)

// TestChooseChunk: ChunkSize up to 129 GiB of data, then larger chunks
// keep the signature section within MaxSectionSize, up to 16 MiB chunks.
func TestChooseChunk(t *testing.T) {
	for _, c := range []struct {
		n     int
		data  uint64
		chunk uint32
	}{
		{4, 0, ChunkSize},
		{4, 100 << 30, ChunkSize},
		{4, 127 << 30, ChunkSize},
		{4, 129 << 30, ChunkSize},
		{4, 130 << 30, 2 * ChunkSize},
		{339, 1 << 40, 512 << 10},
		{4, 30 << 40, maxChunk},
	} {
		got, err := chooseChunk(c.n, c.data)
		if err != nil || got != c.chunk {
			t.Errorf("%d sections, %d bytes: chunk %d, %v; want %d", c.n, c.data, got, err, c.chunk)
			continue
		}
		if size := manifestSize(c.n, chunkCount(c.data, got)) + sectionOverhead; size > MaxSectionSize {
			t.Errorf("%d sections, %d bytes: a signature section of %d bytes", c.n, c.data, size)
		}
	}
	if _, err := chooseChunk(4, 1<<62); !errors.Is(err, bpx.ErrTooLarge) {
		t.Errorf("4 EiB: %v", err)
	}
	if _, err := chooseChunk(3<<20, 0); !errors.Is(err, bpx.ErrTooLarge) {
		t.Errorf("3 Mi sections: %v", err)
	}
}
