package strings

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzTable checks that Get never panics, that every string it returns is
// valid UTF-8 and sits NUL-terminated at the offset, and that every failure
// is one of the documented errors.
func FuzzTable(f *testing.F) {
	f.Add(refSection, uint32(0))
	f.Add(refSection, uint32(21))
	f.Add([]byte("a\x00bcd"), uint32(2))
	f.Add([]byte("ab\xffc\x00"), uint32(0))
	f.Add([]byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, off uint32) {
		s, err := NewTable(data).Get(off)
		if err != nil {
			if !errors.Is(err, ErrOutOfRange) && !errors.Is(err, ErrUnterminated) && !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("Get returned invalid UTF-8 %q", s)
		}
		end := int(off) + len(s)
		if end >= len(data) || data[end] != 0 || !bytes.Equal(data[off:end], []byte(s)) {
			t.Fatalf("Get(%d) = %q does not match the section", off, s)
		}
		// Whatever reads back must also build back.
		var b Builder
		o, err := b.Add(s)
		if err != nil {
			t.Fatalf("Add(%q) of a string Get returned: %v", s, err)
		}
		if got, err := NewTable(b.Bytes()).Get(o); err != nil || got != s {
			t.Fatalf("round trip of %q gave %q, %v", s, got, err)
		}
	})
}

// FuzzTableIndex checks that the index a Table builds once lookups overlap
// answers every offset as the plain scan does, errors and offsets included.
func FuzzTableIndex(f *testing.F) {
	f.Add(refSection)
	f.Add([]byte("ok\x00ab\xffc\x00\xc3\x00\xed\xa0\x80x\x00"))
	f.Add([]byte("é€😀\x00\x80\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		plain, indexed := NewTable(data), NewTable(data)
		indexed.buildIndex()
		for off := uint32(0); off <= uint32(len(data)); off++ {
			want, _, wantErr := plain.scanOrRange(off)
			got, gotErr := indexed.Get(off)
			if got != want || errString(gotErr) != errString(wantErr) {
				t.Fatalf("Get(%d): indexed %q, %v; scan %q, %v", off, got, gotErr, want, wantErr)
			}
		}
	})
}
