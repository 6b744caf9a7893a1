package xzdec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
)

// A stream of several blocks can be read from any block: its index, at
// its end, gives every block's stored and decoded size, so a reader that
// wants bytes far into the stream finds the block that holds them and
// decodes that one alone (every block starts with an empty dictionary).
// ParseFooter and ParseIndex read the index; StartBlock decodes a block.

// FooterSize is the size of a stream footer, the last bytes of a stream.
const FooterSize = 12

// Block is one block of a stream, as the stream's index gives it.
type Block struct {
	Offset int64 // where its header starts in the stream
	Stored int64 // its bytes in the stream: header, data, padding and check
	Start  int64 // where its data starts in the stream's decoded data
	Size   int64 // its decoded size

	unpadded uint64
}

// ErrIndex reports an index or footer that is not one: damage, or bytes
// that are not the end of a stream.
var ErrIndex = errors.New("xzdec: invalid stream index")

// ParseFooter reads f, a stream's last FooterSize bytes, and returns the
// size of the index that precedes it and the stream's flags.
func ParseFooter(f []byte) (indexSize int64, flags [2]byte, err error) {
	if len(f) != FooterSize || !bytes.Equal(f[10:], footerMagic) ||
		crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f) {
		return 0, flags, ErrIndex
	}
	copy(flags[:], f[8:10])
	if _, err := checkSize(flags[:]); err != nil {
		if err != ErrUnsupported {
			err = ErrIndex
		}
		return 0, flags, err
	}
	return (int64(binary.LittleEndian.Uint32(f[4:])) + 1) * 4, flags, nil
}

// ParseIndex reads idx, the index of a stream whose footer gave flags and
// that is at most max bytes long, and returns its blocks in order and the
// stream's size: its header, the blocks, the index and the footer. What
// can be checked without the blocks is: the index's CRC32 and padding,
// the records' sizes. A block's own bytes are checked when it is decoded.
// It allocates for at most len(idx)/2 blocks.
func ParseIndex(idx []byte, flags [2]byte, max int64) ([]Block, int64, error) {
	cs, err := checkSize(flags[:])
	if err != nil {
		return nil, 0, err
	}
	if len(idx) < 8 || len(idx)%4 != 0 || idx[0] != 0 ||
		crc32.ChecksumIEEE(idx[:len(idx)-4]) != binary.LittleEndian.Uint32(idx[len(idx)-4:]) {
		return nil, 0, ErrIndex
	}
	body := idx[:len(idx)-4]
	p := 1
	n, k := uvarint(body[p:])
	// A record takes 2 bytes at least: more would be a lie.
	if k <= 0 || n > uint64(len(body)-p-k)/2 {
		return nil, 0, ErrIndex
	}
	p += k
	blocks := make([]Block, 0, n)
	off, start := int64(12), int64(0) // after the stream header
	room := max - int64(len(idx)) - FooterSize
	for range n {
		u, k1 := uvarint(body[p:])
		if k1 <= 0 {
			return nil, 0, ErrIndex
		}
		v, k2 := uvarint(body[p+k1:])
		if k2 <= 0 {
			return nil, 0, ErrIndex
		}
		p += k1 + k2
		// A block holds a header (8 bytes at least), one byte of LZMA2
		// data and its check, and fits in the stream.
		if u < uint64(9+cs) || u > uint64(math.MaxInt64-3) || v > math.MaxInt64-uint64(start) {
			return nil, 0, ErrIndex
		}
		stored := int64(u+3) &^ 3
		if stored > room-off {
			return nil, 0, ErrIndex
		}
		blocks = append(blocks, Block{Offset: off, Stored: stored, Start: start, Size: int64(v), unpadded: u})
		off += stored
		start += int64(v)
	}
	// Then 0 to 3 bytes of zeros, up to the CRC32.
	if pad := body[p:]; len(pad) > 3 || !allZero(pad) {
		return nil, 0, ErrIndex
	}
	return blocks, off + int64(len(idx)) + FooterSize, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// StartBlock begins decoding block b of a stream whose footer gave flags:
// src holds the block's stored bytes (b.Stored of them, from b.Offset in
// the stream). DecodeTo then appends its decoded bytes to dst, at most
// limit of them, as for Start; Done reports that the whole block was
// decoded and that its header, sizes and check agree with it and with
// the index's record of it.
func (d *Decoder) StartBlock(dst, src []byte, limit int, flags [2]byte, b Block) {
	d.reset(dst, src, limit)
	d.single, d.one = true, record{b.unpadded, uint64(b.Size)}
	if int64(len(src)) != b.Stored || b.Offset%4 != 0 {
		d.err = errCorrupt
		return
	}
	d.checkSize, d.err = checkSize(flags[:])
	d.flags = flags
}

// endSingle ends StartBlock's block: it must be the index's record of it
// and end where the block's stored bytes do.
func (d *Decoder) endSingle() error {
	if d.records[0] != d.one || d.p != len(d.in) {
		return errCorrupt
	}
	d.phase = atEnd
	return nil
}
