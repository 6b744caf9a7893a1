// Package xzenc is a fast single-block .xz (LZMA2) encoder for data held in
// memory, used for BPX's xz sections.
//
// It implements what xz's "fast" mode does (presets 0 to 3): a hash chain
// over 4-byte prefixes and greedy parsing with one step of lazy
// evaluation, with lc=3, lp=0, pb=2; it searches 16 chain candidates per
// position where xz -1 searches 8. It exists because the general-purpose
// encoder of github.com/ulikunitz/xz allocates its dictionary and hash
// tables anew for every stream and runs about half as fast; packing a
// 122 MiB source tree spent most of its time there.
//
// Streams have check type None and one block without size fields; every
// .xz decoder reads them.
package xzenc

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// MinDict and MaxDict bound the dictionary sizes Encode accepts.
const (
	MinDict = 4 << 10
	MaxDict = 1 << 30
)

var (
	xzMagic     = []byte{0xFD, '7', 'z', 'X', 'Z', 0}
	footerMagic = []byte{'Y', 'Z'}
	streamFlags = []byte{0, 0} // check type None
)

// Encode writes data to w as a complete .xz stream whose dictionary size
// is at least dict (rounded up to a size the format can state; matches
// never reach farther back). It returns the first error of w.
func (e *Encoder) Encode(w io.Writer, data []byte, dict int) error {
	if dict < MinDict || dict > MaxDict {
		return errors.New("xzenc: dictionary size out of range")
	}
	e.prepare(data, dict)
	defer func() { e.data, e.w = nil, nil }()
	cw := &countWriter{w: w}
	e.w, e.err = cw, nil

	// Stream header.
	var buf [16]byte
	b := append(buf[:0], xzMagic...)
	b = append(b, streamFlags...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(streamFlags))
	e.write(b)

	// Block header: size, flags (one filter, no sizes), LZMA2 filter with
	// its dictionary byte, padding, CRC32.
	b = append(buf[:0], 12/4-1, 0, 0x21, 1, dictByte(dict), 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	e.write(b)
	blockStart := cw.n - 12

	if len(data) == 0 {
		e.write([]byte{0})
	} else {
		e.encode()
	}
	unpadded := cw.n - blockStart
	var zeros [4]byte
	e.write(zeros[:(4-unpadded%4)%4])

	// Index: one record, padding, CRC32.
	idx := append(buf[:0], 0, 1)
	idx = binary.AppendUvarint(idx, uint64(unpadded))
	idx = binary.AppendUvarint(idx, uint64(len(data)))
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	var ib [32]byte
	idx = binary.LittleEndian.AppendUint32(append(ib[:0], idx...), crc32.ChecksumIEEE(idx))
	e.write(idx)

	// Stream footer: CRC32, backward size, flags, magic.
	var f [12]byte
	binary.LittleEndian.PutUint32(f[4:], uint32(len(idx)/4-1))
	copy(f[8:], streamFlags)
	binary.LittleEndian.PutUint32(f[0:], crc32.ChecksumIEEE(f[4:10]))
	copy(f[10:], footerMagic)
	e.write(f[:])
	return e.err
}

// dictByte encodes the smallest dictionary size of the form 2^n or
// 2^n + 2^(n-1) that is at least d.
func dictByte(d int) byte {
	for b := byte(0); b < 40; b++ {
		if (2|int(b)&1)<<(b/2+11) >= d {
			return b
		}
	}
	return 40 // 4 GiB - 1
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
