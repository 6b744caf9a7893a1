// Package xzdec decodes a complete .xz stream held in memory into a flat
// buffer, for BPX's xz sections: the output itself is the LZMA2
// dictionary, so matches are plain copies, with no circular window to wrap
// around and no state to save between calls.
//
// It handles what BPX writers produce: one stream of LZMA2-only blocks
// with any check (None, CRC32, CRC64, SHA-256). Anything else (other
// filters, concatenated streams or stream padding, a match split between
// LZMA2 chunks) returns ErrUnsupported, and the caller uses a general
// decoder; so does any error, which only needs to be safe, not precise. A
// check that does not match the decoded data is an error like any other
// corruption. Nothing is written beyond the limit the caller gives.
package xzdec

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/crc64"
	"math"
	"sync"
)

// ErrUnsupported reports a valid feature this decoder leaves to others.
var ErrUnsupported = errors.New("xzdec: unsupported .xz feature")

// ErrLimit reports output beyond the caller's limit.
var ErrLimit = errors.New("xzdec: output larger than the limit")

// ErrDict reports a block declaring a dictionary above Decoder.MaxDict.
var ErrDict = errors.New("xzdec: dictionary larger than allowed")

var (
	headerMagic = []byte{0xFD, '7', 'z', 'X', 'Z', 0}
	footerMagic = []byte{'Y', 'Z'}
)

// crc64Table is built on first use, not at program start.
var crc64Table = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// Decoder holds the LZMA state (about 30 KB); reuse it across streams. A
// Decoder is not safe for concurrent use.
type Decoder struct {
	// MaxDict, if not 0, is the largest dictionary a block may declare.
	// This decoder needs no dictionary of its own (the output is one), but
	// a caller may want the limit a streaming decoder enforces.
	MaxDict uint32

	m  model
	rc rangeDecoder
}

type record struct{ unpadded, usize uint64 }

// Decode appends the decoded contents of the .xz stream src to dst and
// returns the extended slice. It never appends more than limit bytes. On
// error dst[:len(dst)] is unchanged, but the bytes after it (up to its
// capacity) may have been overwritten.
func (d *Decoder) Decode(dst, src []byte, limit int) ([]byte, error) {
	orig := len(dst)
	out, err := d.decode(dst, src, limit)
	if err != nil {
		return dst[:orig], err
	}
	return out, nil
}

func (d *Decoder) decode(out, in []byte, limit int) ([]byte, error) {
	if len(in) < 12 || !bytes.Equal(in[:6], headerMagic) {
		return nil, errCorrupt
	}
	flags := in[6:8]
	if crc32.ChecksumIEEE(flags) != binary.LittleEndian.Uint32(in[8:12]) || flags[0] != 0 || flags[1]&0xF0 != 0 {
		return nil, errCorrupt
	}
	checkSize := 0
	switch flags[1] {
	case 0:
	case 1:
		checkSize = 4
	case 4:
		checkSize = 8
	case 10:
		checkSize = sha256.Size
	default:
		return nil, ErrUnsupported
	}
	// limit counts from len(out); as a bound on the total length it
	// must not wrap.
	limit = len(out) + min(limit, math.MaxInt-len(out))
	p := 12
	var records []record
	for {
		if p >= len(in) {
			return nil, errCorrupt
		}
		if in[p] == 0 {
			break // the index
		}
		start := len(out)
		hdrSize := (int(in[p]) + 1) * 4
		dict, csize, usize, err := parseBlockHeader(in[p:], hdrSize)
		if err != nil {
			return nil, err
		}
		if d.MaxDict > 0 && dict > d.MaxDict {
			return nil, ErrDict
		}
		p += hdrSize
		dataStart := p
		out, p, err = d.lzma2(out, in, p, dict, limit)
		if err != nil {
			return nil, err
		}
		cs, us := uint64(p-dataStart), uint64(len(out)-start)
		if csize >= 0 && uint64(csize) != cs || usize >= 0 && uint64(usize) != us {
			return nil, errCorrupt
		}
		for p%4 != 0 {
			if p >= len(in) || in[p] != 0 {
				return nil, errCorrupt
			}
			p++
		}
		if p+checkSize > len(in) {
			return nil, errCorrupt
		}
		switch checkSize { // stored little-endian
		case 4:
			if crc32.ChecksumIEEE(out[start:]) != binary.LittleEndian.Uint32(in[p:]) {
				return nil, errCorrupt
			}
		case 8:
			if crc64.Checksum(out[start:], crc64Table()) != binary.LittleEndian.Uint64(in[p:]) {
				return nil, errCorrupt
			}
		case sha256.Size:
			if sum := sha256.Sum256(out[start:]); !bytes.Equal(sum[:], in[p:p+sha256.Size]) {
				return nil, errCorrupt
			}
		}
		p += checkSize
		records = append(records, record{uint64(hdrSize) + cs + uint64(checkSize), us})
	}
	// Index: indicator, count, records, padding, CRC32.
	idxStart := p
	p++
	n, k := uvarint(in[p:])
	if k <= 0 || n != uint64(len(records)) {
		return nil, errCorrupt
	}
	p += k
	for _, r := range records {
		u, k1 := uvarint(in[p:])
		if k1 <= 0 {
			return nil, errCorrupt
		}
		v, k2 := uvarint(in[p+k1:])
		if k2 <= 0 || u != r.unpadded || v != r.usize {
			return nil, errCorrupt
		}
		p += k1 + k2
	}
	for (p-idxStart)%4 != 0 {
		if p >= len(in) || in[p] != 0 {
			return nil, errCorrupt
		}
		p++
	}
	if p+4 > len(in) || crc32.ChecksumIEEE(in[idxStart:p]) != binary.LittleEndian.Uint32(in[p:]) {
		return nil, errCorrupt
	}
	p += 4
	// Footer: CRC32, backward size, flags, magic.
	if len(in)-p < 12 {
		return nil, errCorrupt
	}
	f := in[p : p+12]
	if crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f) ||
		uint64(binary.LittleEndian.Uint32(f[4:]))+1 != uint64(p-idxStart)/4 ||
		!bytes.Equal(f[8:10], flags) || !bytes.Equal(f[10:], footerMagic) {
		return nil, errCorrupt
	}
	if p+12 != len(in) {
		return nil, ErrUnsupported // stream padding or another stream
	}
	return out, nil
}

// parseBlockHeader returns the LZMA2 dictionary size and the sizes the
// header states (-1 if absent). The dictionary is a uint32: up to 4 GiB - 1,
// which an int does not hold where it has 32 bits.
func parseBlockHeader(h []byte, size int) (dict uint32, csize, usize int64, err error) {
	if len(h) < size || size < 8 {
		return 0, 0, 0, errCorrupt
	}
	if crc32.ChecksumIEEE(h[:size-4]) != binary.LittleEndian.Uint32(h[size-4:]) {
		return 0, 0, 0, errCorrupt
	}
	flags := h[1]
	if flags&0x3C != 0 {
		return 0, 0, 0, errCorrupt
	}
	if flags&3 != 0 {
		return 0, 0, 0, ErrUnsupported // more than one filter
	}
	p := 2
	csize, usize = -1, -1
	field := func() (int64, bool) {
		v, k := uvarint(h[p : size-4])
		if k <= 0 || v > 1<<62 {
			return 0, false
		}
		p += k
		return int64(v), true
	}
	var ok bool
	if flags&0x40 != 0 {
		if csize, ok = field(); !ok || csize == 0 {
			return 0, 0, 0, errCorrupt
		}
	}
	if flags&0x80 != 0 {
		if usize, ok = field(); !ok {
			return 0, 0, 0, errCorrupt
		}
	}
	id, ok1 := field()
	psize, ok2 := field()
	if !ok1 || !ok2 {
		return 0, 0, 0, errCorrupt
	}
	if id != 0x21 || psize != 1 {
		return 0, 0, 0, ErrUnsupported
	}
	if p >= size-4 {
		return 0, 0, 0, errCorrupt
	}
	db := h[p]
	p++
	if db > 40 {
		return 0, 0, 0, errCorrupt
	}
	for ; p < size-4; p++ {
		if h[p] != 0 {
			return 0, 0, 0, errCorrupt
		}
	}
	if db == 40 {
		return 1<<32 - 1, csize, usize, nil
	}
	return (2 | uint32(db)&1) << (db/2 + 11), csize, usize, nil
}

// uvarint decodes an .xz variable-length integer (at most 9 bytes, no
// redundant trailing zero byte).
func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		v |= uint64(b[i]&0x7F) << (7 * uint(i))
		if b[i]&0x80 == 0 {
			if i > 0 && b[i] == 0 {
				return 0, -1
			}
			return v, i + 1
		}
	}
	return 0, -1
}

// lzma2 decodes the LZMA2 data at in[p:] onto out (up to total length
// limit) and returns the position after its end marker.
func (d *Decoder) lzma2(out, in []byte, p int, dictSize uint32, limit int) ([]byte, int, error) {
	needDictReset, needProps := true, true
	dictStart := len(out)
	m, rc := &d.m, &d.rc
	for {
		if p >= len(in) {
			return nil, 0, errCorrupt
		}
		ctl := in[p]
		p++
		if ctl == 0 {
			return out, p, nil
		}
		if ctl >= 0xE0 || ctl == 1 {
			needProps, needDictReset = true, false
			dictStart = len(out)
		} else if needDictReset {
			return nil, 0, errCorrupt
		}
		if ctl < 0x80 {
			if ctl > 2 || p+2 > len(in) {
				return nil, 0, errCorrupt
			}
			n := int(in[p])<<8 | int(in[p+1]) + 1
			p += 2
			if n > len(in)-p {
				return nil, 0, errCorrupt
			}
			if n > limit-len(out) {
				return nil, 0, ErrLimit
			}
			out = append(out, in[p:p+n]...)
			p += n
			continue
		}
		if p+4 > len(in) {
			return nil, 0, errCorrupt
		}
		usize := int(ctl&0x1F)<<16 | int(in[p])<<8 | int(in[p+1]) + 1
		csize := int(in[p+2])<<8 | int(in[p+3]) + 1
		p += 4
		if ctl >= 0xC0 {
			if p >= len(in) {
				return nil, 0, errCorrupt
			}
			props := uint32(in[p])
			p++
			if props >= 9*5*5 {
				return nil, 0, errCorrupt
			}
			lc, lp, pb := props%9, props/9%5, props/45
			if lc+lp > 4 {
				return nil, 0, errCorrupt
			}
			m.lc, m.lp, m.pb = lc, lp, pb
			needProps = false
		} else if needProps {
			return nil, 0, errCorrupt
		}
		if ctl >= 0xA0 {
			m.reset()
		}
		if csize > len(in)-p {
			return nil, 0, errCorrupt
		}
		pos := len(out)
		if usize > limit-pos {
			return nil, 0, ErrLimit
		}
		out = grow(out, usize)
		if err := rc.init(in[p : p+csize]); err != nil {
			return nil, 0, err
		}
		if err := m.decodeChunk(rc, out, pos, pos+usize, dictStart, dictSize); err != nil {
			return nil, 0, err
		}
		if !rc.finished() {
			return nil, 0, errCorrupt
		}
		p += csize
	}
}

// grow extends out by n bytes, reallocating only if its capacity is short.
func grow(out []byte, n int) []byte {
	if cap(out)-len(out) >= n {
		return out[:len(out)+n]
	}
	return append(out, make([]byte, n)...)
}
