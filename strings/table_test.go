package strings

import (
	"errors"
	"testing"

	"github.com/gobpx/bpx"
)

// refSection is the string section of the reference's tests/test.bpx
// (real/BPX-rs_tests_test.bpx): duplicates included, as the reference
// writes them.
var refSection = []byte("test\x00test2\x00test\x00test_new\x00bpx\x00bpx\x00")

func TestTableGet(t *testing.T) {
	for name, tab := range map[string]*Table{"bytes": NewTable(refSection), "string": NewTableString(string(refSection))} {
		t.Run(name, func(t *testing.T) { testTableGet(t, tab) })
	}
}

func testTableGet(t *testing.T, tab *Table) {
	tests := []struct {
		off  uint32
		want string
	}{
		{0, "test"},
		{5, "test2"},
		{11, "test"},
		{16, "test_new"},
		{21, "new"}, // an offset inside a string yields its tail
		{25, "bpx"},
		{29, "bpx"},
		{4, ""}, // the terminator of "test" read as an empty string
	}
	for _, tt := range tests {
		got, err := tab.Get(tt.off)
		if err != nil || got != tt.want {
			t.Errorf("Get(%d) = %q, %v; want %q", tt.off, got, err, tt.want)
		}
	}
	if tab.Len() != len(refSection) {
		t.Errorf("Len = %d, want %d", tab.Len(), len(refSection))
	}
}

func TestTableErrors(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		off     uint32
		want    error
		wantOff int64
	}{
		{"empty section", nil, 0, ErrOutOfRange, 0},
		{"offset at end", []byte("a\x00"), 2, ErrOutOfRange, 2},
		{"offset far past end", []byte("a\x00"), 500, ErrOutOfRange, 500},
		{"max offset", []byte("a\x00"), ^uint32(0), ErrOutOfRange, int64(^uint32(0))},
		{"no terminator", []byte("a\x00bcd"), 2, ErrUnterminated, 2},
		{"invalid utf8", []byte("ok\x00ab\xffc\x00"), 3, ErrInvalidUTF8, 5},
		{"truncated rune", []byte("\xc3\x00"), 0, ErrInvalidUTF8, 0},
		{"surrogate", []byte("x\xed\xa0\x80\x00"), 0, ErrInvalidUTF8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewTable(tt.data).Get(tt.off)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Get(%d) = %q, %v; want %v", tt.off, s, err, tt.want)
			}
			if !errors.Is(err, bpx.ErrFormat) {
				t.Errorf("error %v does not match bpx.ErrFormat", err)
			}
			var e *Error
			if !errors.As(err, &e) || e.Offset != tt.wantOff {
				t.Errorf("error %v: want *Error at offset %d", err, tt.wantOff)
			}
		})
	}
}

func TestTableZeroValue(t *testing.T) {
	var tab Table
	if _, err := tab.Get(0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("zero Table Get(0) error = %v, want ErrOutOfRange", err)
	}
}

func TestTableGetDoesNotAllocate(t *testing.T) {
	big := make([]byte, 0, 1<<20)
	for len(big) < 1<<20-16 {
		big = append(big, "some-name\x00"...)
	}
	tab := NewTable(big)
	last := uint32(len(big) - len("some-name\x00"))
	allocs := testing.AllocsPerRun(100, func() {
		s, err := tab.Get(last)
		if err != nil || s != "some-name" {
			t.Fatalf("Get(%d) = %q, %v", last, s, err)
		}
	})
	if allocs != 0 {
		t.Errorf("Get allocates %v times per call, want 0", allocs)
	}
}
