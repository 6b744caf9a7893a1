package bpx

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"
)

// hugeFile is a ReaderAt of size bytes: head, then zeros. It stands for a
// file larger than a 32-bit address space without storing it.
type hugeFile struct {
	head []byte
	size int64
}

func (f hugeFile) ReadAt(p []byte, off int64) (int, error) {
	clear(p)
	if off < int64(len(f.head)) {
		copy(p, f.head[off:])
	}
	return len(p), nil
}

// TestSectionTooLargeForInt reads sections of 3 GiB, declared by crafted
// headers in a 4 GiB file, whole: on a 32-bit platform they cannot fit in
// a slice and Data must fail with ErrTooLarge, not panic or wrap. Open
// still streams them.
func TestSectionTooLargeForInt(t *testing.T) {
	if strconv.IntSize != 32 {
		t.Skip("3 GiB fits in an int on 64-bit platforms; reading it whole would allocate 3 GiB")
	}
	const size = 3 << 30
	head := buildContainer('Z', [16]byte{}, []rawSection{
		{1, 0, nil, size, 0},
		{1, FlagZlib, nil, size, 0},
	})
	// The zlib section stores 3 GiB too (CSize of the second entry).
	binary.LittleEndian.PutUint32(head[MainHeaderSize+SectionHeaderSize+8:], size)
	head = append(head, 0x78, 0x9C) // both sections start with a zlib header
	rd, err := NewReader(hugeFile{head, 4 << 30}, 4<<30, SkipChecksums())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rd.Sections {
		if got, err := s.Data(); !errors.Is(err, ErrTooLarge) || got != nil {
			t.Errorf("section %d: Data = %d bytes, %v; want ErrTooLarge", s.Index, len(got), err)
		}
		dst := []byte("kept")
		if got, err := s.AppendData(dst); !errors.Is(err, ErrTooLarge) || string(got) != "kept" {
			t.Errorf("section %d: AppendData = %q, %v; want ErrTooLarge and dst", s.Index, got, err)
		}
	}
	rc, err := rd.Sections[0].Open()
	if err != nil {
		t.Fatalf("Open of a 3 GiB raw section: %v", err)
	}
	var b [1 << 16]byte
	if n, err := rc.Read(b[:]); n != len(b) || err != nil {
		t.Errorf("Read = %d, %v", n, err)
	}
	rc.Close()
}

// TestTableTooLargeForInt declares 2^31 - 1 sections in a file large
// enough to hold their table (48 GiB): on a 32-bit platform the table
// cannot be read into a slice, which must be ErrTooLarge.
func TestTableTooLargeForInt(t *testing.T) {
	if strconv.IntSize != 32 {
		t.Skip("on 64-bit platforms this table would be allocated (48 GiB)")
	}
	head := buildContainer('Z', [16]byte{}, nil)
	binary.LittleEndian.PutUint32(head[16:], math.MaxInt32) // SectionNum
	_, err := NewReader(hugeFile{head, 1 << 40}, 1<<40, WithMaxSections(math.MaxInt32), SkipChecksums())
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("NewReader = %v, want ErrTooLarge", err)
	}
}
