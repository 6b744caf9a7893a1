package strings

import (
	"strings"
	"unicode/utf8"
)

// Table reads strings out of the bytes of one uncompressed string section.
// It keeps one copy of the section, and Get returns substrings of that copy:
// looking up a string allocates nothing, and any number of lookups that
// share or overlap bytes cost no memory of their own. The zero Table is an
// empty section. A Table is safe for concurrent use.
type Table struct {
	s string
}

// NewTable returns a Table over a copy of data.
func NewTable(data []byte) *Table {
	return &Table{s: string(data)}
}

// NewTableString returns a Table over s, without copying it: the way to
// build a Table from a section read into a strings.Builder, which costs one
// buffer instead of a []byte and its copy.
func NewTableString(s string) *Table {
	return &Table{s: s}
}

// Len returns the size of the section in bytes.
func (t *Table) Len() int { return len(t.s) }

// Get returns the string that starts at byte offset off: the bytes up to,
// not including, the next NUL. It costs time proportional to the length of
// that string and allocates nothing. Errors are *Error values matching
// ErrOutOfRange, ErrUnterminated or ErrInvalidUTF8.
func (t *Table) Get(off uint32) (string, error) {
	if uint64(off) >= uint64(len(t.s)) {
		return "", &Error{Offset: int64(off), Err: ErrOutOfRange}
	}
	rest := t.s[off:]
	n := strings.IndexByte(rest, 0)
	if n < 0 {
		return "", &Error{Offset: int64(off), Err: ErrUnterminated}
	}
	str := rest[:n]
	if !utf8.ValidString(str) {
		return "", &Error{Offset: int64(off) + int64(firstInvalid(str)), Err: ErrInvalidUTF8}
	}
	return str, nil
}

// firstInvalid returns the index of the first byte of s that does not start
// a valid UTF-8 sequence.
func firstInvalid(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
}
