package bpx

import (
	"errors"
	"io"
	"math"
	"testing"
)

func TestSectionLargerThanU32IsTooLarge(t *testing.T) {
	w := NewWriter(io.Discard)
	sw, err := w.CreateSection(1, SectionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Pretend 4 GiB - 2 bytes were written already.
	sw.(*sectionWriter).n = math.MaxUint32 - 1
	if _, err := sw.Write([]byte{1, 2}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Write past 4 GiB - 1: %v, want ErrTooLarge", err)
	}
	if _, err := sw.Write([]byte{1}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error is not sticky: %v", err)
	}
	if err := w.Close(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Close: %v, want ErrTooLarge", err)
	}
}

func TestTooManySections(t *testing.T) {
	defer func(n int) { maxWriterSections = n }(maxWriterSections)
	maxWriterSections = 3
	w := NewWriter(io.Discard)
	for i := range 3 {
		if _, err := w.CreateSection(uint8(i), SectionOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.CreateSection(3, SectionOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("section beyond the limit: %v, want ErrTooLarge", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close after a refused section: %v", err)
	}
}

func TestCapWriterStopsAtLimit(t *testing.T) {
	var n int
	cw := &capWriter{w: writerFunc(func(p []byte) (int, error) { n += len(p); return len(p), nil }), limit: 10}
	if _, err := cw.Write(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := cw.Write(make([]byte, 1)); !errors.Is(err, errNoGain) {
		t.Fatalf("write past the limit: %v", err)
	}
	if _, err := cw.Write(nil); !errors.Is(err, errNoGain) {
		t.Fatalf("errNoGain not sticky: %v", err)
	}
	if n != 10 {
		t.Fatalf("%d bytes passed through, want 10", n)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
