package strings

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"testing"
)

func TestBuilderDeduplicates(t *testing.T) {
	var b Builder
	names := []string{"test", "test2", "test", "test_new", "bpx", "bpx", "", "héllo 你好"}
	offs := make([]uint32, len(names))
	for i, s := range names {
		off, err := b.Add(s)
		if err != nil {
			t.Fatalf("Add(%q): %v", s, err)
		}
		offs[i] = off
	}
	want := []byte("test\x00test2\x00test_new\x00bpx\x00\x00héllo 你好\x00")
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("Bytes = %q, want %q", b.Bytes(), want)
	}
	if b.Len() != len(want) {
		t.Errorf("Len = %d, want %d", b.Len(), len(want))
	}
	if offs[0] != offs[2] || offs[4] != offs[5] {
		t.Errorf("duplicates got different offsets: %v", offs)
	}
	tab := NewTable(b.Bytes())
	for i, s := range names {
		got, err := tab.Get(offs[i])
		if err != nil || got != s {
			t.Errorf("Get(%d) = %q, %v; want %q", offs[i], got, err, s)
		}
	}
}

func TestBuilderRejects(t *testing.T) {
	var b Builder
	if _, err := b.Add("ok"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		s       string
		want    error
		wantOff int64
	}{
		{"a\x00b", ErrNUL, 4},
		{"ab\xff", ErrInvalidUTF8, 5},
	}
	for _, tt := range tests {
		_, err := b.Add(tt.s)
		var e *Error
		if !errors.Is(err, tt.want) || !errors.As(err, &e) || e.Offset != tt.wantOff {
			t.Errorf("Add(%q) error = %v, want %v at offset %d", tt.s, err, tt.want, tt.wantOff)
		}
	}
	if got := string(b.Bytes()); got != "ok\x00" {
		t.Errorf("failed Adds changed the section: %q", got)
	}
}

func TestBuilderReset(t *testing.T) {
	var b Builder
	b.Add("one")
	b.Reset()
	if b.Len() != 0 {
		t.Fatalf("Len after Reset = %d", b.Len())
	}
	off, err := b.Add("two")
	if err != nil || off != 0 {
		t.Fatalf("Add after Reset = %d, %v", off, err)
	}
	if off, _ := b.Add("one"); off != 4 {
		t.Errorf("Add(one) after Reset = %d, want 4 (Reset must forget old strings)", off)
	}
}

// On 32-bit platforms Add stops at what an int counts, not at MaxSize.
func TestMaxLenFitsInt(t *testing.T) {
	if uint64(maxLen) > uint64(math.MaxInt) || (strconv.IntSize == 64) != (maxLen == MaxSize) {
		t.Errorf("maxLen %d with %d-bit ints", uint64(maxLen), strconv.IntSize)
	}
}

func TestBuilderAddNew(t *testing.T) {
	var b Builder
	b.Grow(64)
	for i, s := range []string{"a/b", "a/c", "a/b"} {
		off, err := b.AddNew(s)
		if want := uint32(4 * i); err != nil || off != want {
			t.Fatalf("AddNew(%q) = %d, %v; want %d", s, off, err, want)
		}
	}
	// Add finds what Add stored, not what AddNew did.
	if off, err := b.Add("a/b"); err != nil || off != 12 {
		t.Fatalf("Add after AddNew = %d, %v; want 12 (stored again)", off, err)
	}
	if off, _ := b.Add("a/b"); off != 12 {
		t.Fatalf("Add again = %d, want 12", off)
	}
	if _, err := b.AddNew("x\x00"); !errors.Is(err, ErrNUL) {
		t.Fatalf("AddNew of a NUL: %v", err)
	}
	if got := string(b.Bytes()); got != "a/b\x00a/c\x00a/b\x00a/b\x00" {
		t.Fatalf("Bytes = %q", got)
	}
}
