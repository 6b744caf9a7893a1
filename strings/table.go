package strings

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Table reads strings out of the bytes of one uncompressed string section.
// It keeps one copy of the section, and Get returns substrings of that copy:
// looking up a string allocates nothing, and any number of lookups that
// share or overlap bytes cost no memory of their own. The zero Table is an
// empty section. A Table is safe for concurrent use and must not be copied
// after first use.
type Table struct {
	s string

	// Lookups scan the section from their offset to the next NUL. Once
	// they have scanned more than scanBudget bytes in all (overlapping
	// strings, such as hostile pointers to every byte of one long string),
	// the Table indexes the section in one pass and answers from the index.
	scanned atomic.Int64
	once    sync.Once
	indexed atomic.Bool
	nuls    []uint32 // offsets of the NUL bytes, ascending
	bad     []uint32 // offsets where decoding the section as UTF-8 fails, ascending
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

// scanBudget is how many bytes lookups scan in all before the Table
// indexes its section: twice the section, so that tables whose strings do
// not overlap never build the index.
func (t *Table) scanBudget() int64 { return 2*int64(len(t.s)) + 4096 }

// Get returns the string that starts at byte offset off: the bytes up to,
// not including, the next NUL. It allocates nothing, and costs time
// proportional to the length of that string, or, once lookups have read
// the section twice over, logarithmic in its size. Errors are *Error values
// matching ErrOutOfRange, ErrUnterminated or ErrInvalidUTF8.
func (t *Table) Get(off uint32) (string, error) {
	if uint64(off) >= uint64(len(t.s)) {
		return "", &Error{Offset: int64(off), Err: ErrOutOfRange}
	}
	if !t.indexed.Load() {
		if t.scanned.Load() <= t.scanBudget() {
			str, n, err := t.scan(off)
			t.scanned.Add(int64(n))
			return str, err
		}
		t.once.Do(t.buildIndex)
	}
	return t.lookup(off)
}

// scan is Get without the index. It also returns how many bytes it read.
func (t *Table) scan(off uint32) (string, int, error) {
	rest := t.s[off:]
	n := strings.IndexByte(rest, 0)
	if n < 0 {
		return "", len(rest), &Error{Offset: int64(off), Err: ErrUnterminated}
	}
	str := rest[:n]
	if !utf8.ValidString(str) {
		return "", 2 * n, &Error{Offset: int64(off) + int64(firstInvalid(str)), Err: ErrInvalidUTF8}
	}
	return str, n + 1, nil
}

// buildIndex records where the NUL bytes are and where decoding the whole
// section as UTF-8 fails: 4 bytes for each, at most 4 times the section.
// A string that starts at a byte other than a UTF-8 continuation byte
// decodes from there as the whole section does (decoding steps one byte
// past a bad one, and a valid rune holds no such byte after its first), so
// its first bad byte is the first failure at or after its offset.
func (t *Table) buildIndex() {
	s := t.s
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				t.nuls = append(t.nuls, uint32(i))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			t.bad = append(t.bad, uint32(i))
			size = 1
		}
		i += size
	}
	t.indexed.Store(true)
}

// lookup is Get from the index.
func (t *Table) lookup(off uint32) (string, error) {
	k, _ := slices.BinarySearch(t.nuls, off)
	if k == len(t.nuls) {
		return "", &Error{Offset: int64(off), Err: ErrUnterminated}
	}
	end := t.nuls[k]
	if off < end && !utf8.RuneStart(t.s[off]) {
		return "", &Error{Offset: int64(off), Err: ErrInvalidUTF8}
	}
	if b, _ := slices.BinarySearch(t.bad, off); b < len(t.bad) && t.bad[b] < end {
		return "", &Error{Offset: int64(t.bad[b]), Err: ErrInvalidUTF8}
	}
	return t.s[off:end], nil
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
