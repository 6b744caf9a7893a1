package bpx

import (
	"bytes"
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
	defer func(n int64) { maxWriterSections = n }(maxWriterSections)
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

// A version-0 draft container rewrites into a version-2 one: stored bytes
// are copied unchanged and the zlib section, whose USize the draft does not
// record, gets the size it decodes to.
func TestRewriteVersion0Draft(t *testing.T) {
	payload := bytes.Repeat([]byte("draft "), 500)
	stream := zlibBytes(t, payload)
	src := buildVersion0('T', [8]byte{1, 2}, []v0Section{{typ: 1, stored: []byte("raw bytes")}, {typ: 2, flags: v0FlagZlib, stored: stream}})
	rd, err := NewReader(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Rewrite(&out, rd, nil); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != CurrentVersion || r.Header.Type != 'T' || r.Header.TypeExt != [16]byte{1, 2} {
		t.Errorf("header %+v", r.Header)
	}
	want := []SectionHeader{
		{Pointer: 88, CSize: 9, USize: 9, Type: 1},
		{Pointer: 97, CSize: uint32(len(stream)), USize: uint32(len(payload)), Type: 2, Flags: FlagZlib},
	}
	for i, s := range r.Sections {
		if s.SectionHeader != want[i] {
			t.Errorf("section %d: %+v, want %+v", i, s.SectionHeader, want[i])
		}
	}
	if got := out.Bytes()[97:]; !bytes.Equal(got, stream) {
		t.Error("zlib stream not copied byte for byte")
	}
	if d, err := r.Sections[1].Data(); err != nil || !bytes.Equal(d, payload) {
		t.Errorf("zlib section: %v, equal %v", err, bytes.Equal(d, payload))
	}
}
