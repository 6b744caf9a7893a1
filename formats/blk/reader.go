package blk

import (
	"encoding/binary"
	"fmt"
)

// reader walks a byte slice and produces positional errors.
type reader struct {
	b    []byte
	off  int
	base int64  // offset of b[0] in the unit named by in
	in   string // "" or the name of the decompressed unit
}

func (r *reader) errf(off int, format string, args ...any) error {
	return &FormatError{Offset: r.base + int64(off), In: r.in, What: fmt.Sprintf(format, args...)}
}

func (r *reader) limitf(off int, format string, args ...any) error {
	return &FormatError{Offset: r.base + int64(off), In: r.in, What: fmt.Sprintf(format, args...), Err: ErrTooLarge}
}

func (r *reader) remaining() int { return len(r.b) - r.off }

// maxULEB is the longest ULEB128 accepted for a u32, as in the engine.
const maxULEB = 5

// uleb reads an unsigned LEB128 of at most 5 bytes whose value fits in 32
// bits.
func (r *reader) uleb(what string) (uint32, error) {
	start := r.off
	var v uint64
	for i := 0; i < maxULEB; i++ {
		if r.off >= len(r.b) {
			return 0, r.errf(start, "truncated ULEB for %s", what)
		}
		c := r.b[r.off]
		r.off++
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if v > 0xFFFFFFFF {
				return 0, r.errf(start, "ULEB for %s overflows 32 bits", what)
			}
			return uint32(v), nil
		}
	}
	return 0, r.errf(start, "ULEB for %s longer than %d bytes", what, maxULEB)
}

// bytes returns the next n bytes.
func (r *reader) bytes(n int, what string) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, r.errf(r.off, "%s of %d bytes runs past the end (%d left)", what, n, r.remaining())
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) u16(what string) (uint16, error) {
	b, err := r.bytes(2, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u8(what string) (byte, error) {
	b, err := r.bytes(1, what)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}
