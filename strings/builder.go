package strings

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxSize is the largest string section a [Builder] produces: string
// pointers are 32-bit offsets. On 32-bit platforms the limit is
// math.MaxInt, the most a slice holds.
const MaxSize = math.MaxUint32

// maxLen is MaxSize, or less where an int cannot count that far (32-bit
// platforms): past it, Add fails with ErrTooLarge instead of panicking.
const maxLen = min(MaxSize, math.MaxInt)

// Builder assembles a string section. Each distinct string is stored once;
// adding it again returns the first offset. The zero Builder is empty and
// ready to use. A Builder is not safe for concurrent use.
type Builder struct {
	buf   []byte
	index map[string]uint32
}

// Add appends s (if it is not already present) and returns its offset in
// the section. It fails, leaving the Builder unchanged, when s contains a
// NUL byte (ErrNUL), is not valid UTF-8 (ErrInvalidUTF8) or would make the
// section larger than MaxSize (ErrTooLarge).
func (b *Builder) Add(s string) (uint32, error) {
	if off, ok := b.index[s]; ok {
		return off, nil
	}
	off, err := b.AddNew(s)
	if err != nil {
		return 0, err
	}
	if b.index == nil {
		b.index = make(map[string]uint32)
	}
	b.index[s] = off
	return off, nil
}

// AddNew appends s as Add does, but without looking for an earlier copy
// of it, for callers whose strings are distinct (the paths of a package):
// it saves Add's index of every string, a map entry each. A later Add of
// s does not find it, and stores s again.
func (b *Builder) AddNew(s string) (uint32, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return 0, &Error{Offset: int64(len(b.buf)) + int64(i), Err: ErrNUL}
	}
	if !utf8.ValidString(s) {
		return 0, &Error{Offset: int64(len(b.buf)) + int64(firstInvalid(s)), Err: ErrInvalidUTF8}
	}
	if uint64(len(b.buf))+uint64(len(s))+1 > maxLen {
		return 0, &Error{Offset: int64(len(b.buf)), Err: ErrTooLarge}
	}
	off := uint32(len(b.buf))
	b.buf = append(b.buf, s...)
	b.buf = append(b.buf, 0)
	return off, nil
}

// Grow makes room for n more bytes of strings (their terminators
// included) without another allocation.
func (b *Builder) Grow(n int) { b.buf = slices.Grow(b.buf, n) }

// Len returns the current size of the section in bytes.
func (b *Builder) Len() int { return len(b.buf) }

// Bytes returns the section built so far. The slice aliases the Builder's
// buffer: it is valid until the next call to Add or Reset.
func (b *Builder) Bytes() []byte { return b.buf }

// Reset empties the Builder, keeping its buffer for reuse.
func (b *Builder) Reset() {
	b.buf = b.buf[:0]
	clear(b.index)
}
