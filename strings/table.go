package strings

import (
	"bytes"
	"unicode/utf8"
)

// Table reads strings out of the bytes of one uncompressed string section.
// The zero Table is an empty section. A Table is safe for concurrent use.
type Table struct {
	data []byte
}

// NewTable returns a Table over data, which it keeps and never modifies.
// The caller must not modify data while the Table is in use.
func NewTable(data []byte) *Table {
	return &Table{data: data}
}

// Len returns the size of the section in bytes.
func (t *Table) Len() int { return len(t.data) }

// Get returns the string that starts at byte offset off: the bytes up to,
// not including, the next NUL. It costs time proportional to the length of
// that string. Errors are *Error values matching ErrOutOfRange,
// ErrUnterminated or ErrInvalidUTF8.
func (t *Table) Get(off uint32) (string, error) {
	b, err := t.bytesAt(off)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Bytes is like [Table.Get] but returns the string's bytes without copying
// them: the result aliases the section and must not be modified.
func (t *Table) Bytes(off uint32) ([]byte, error) {
	return t.bytesAt(off)
}

func (t *Table) bytesAt(off uint32) ([]byte, error) {
	if uint64(off) >= uint64(len(t.data)) {
		return nil, &Error{Offset: int64(off), Err: ErrOutOfRange}
	}
	rest := t.data[off:]
	n := bytes.IndexByte(rest, 0)
	if n < 0 {
		return nil, &Error{Offset: int64(off), Err: ErrUnterminated}
	}
	s := rest[:n:n]
	if !utf8.Valid(s) {
		return nil, &Error{Offset: int64(off) + int64(firstInvalid(s)), Err: ErrInvalidUTF8}
	}
	return s, nil
}

// firstInvalid returns the index of the first byte of s that does not start
// a valid UTF-8 sequence.
func firstInvalid(s []byte) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
}
