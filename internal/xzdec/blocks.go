package xzdec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
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

// ErrTooManyBlocks reports an index of more records than its reader
// holds.
var ErrTooManyBlocks = errors.New("xzdec: more blocks than the reader maps")

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
// the records' sizes. A block's own bytes are checked when it is decoded,
// or against its record by CheckBlock. An index of more than maxBlocks
// records is ErrTooManyBlocks, before anything is allocated; it allocates
// for at most that many blocks.
func ParseIndex(idx []byte, flags [2]byte, max int64, maxBlocks int) ([]Block, int64, error) {
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
	if maxBlocks < 0 || n > uint64(maxBlocks) {
		return nil, 0, ErrTooManyBlocks
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

// CheckBlock checks block b of a stream whose footer gave flags against
// its index record without decoding it: its header, then the headers of
// its LZMA2 chunks, each stating how many bytes the chunk decodes to (a
// decoder makes exactly that many, or fails). They must add up to the
// record's size, agree with the sizes the header states, if any, and end
// where the record says the block's stored bytes end. An index that moves
// bytes from one record to another (same total, CRC32 recomputed) would
// otherwise shift the data of every later block for a reader that decodes
// blocks apart. r reads the stream from its first byte; CheckBlock reads
// the block's header and 6 bytes per chunk (a chunk holds up to 64 KiB of
// stored bytes), and allocates nothing beyond the header.
func CheckBlock(r io.ReaderAt, flags [2]byte, b Block) error {
	cs, err := checkSize(flags[:])
	if err != nil {
		return err
	}
	var h [1024]byte
	if _, err := r.ReadAt(h[:1], b.Offset); err != nil {
		return readErr(err)
	}
	size := (int64(h[0]) + 1) * 4
	if h[0] == 0 || size+int64(cs)+1 > b.Stored {
		return errCorrupt
	}
	if _, err := r.ReadAt(h[:size], b.Offset); err != nil {
		return readErr(err)
	}
	_, hcsize, husize, err := parseBlockHeader(h[:size], int(size))
	if err != nil {
		return err
	}
	end := b.Offset + int64(b.unpadded) - int64(cs) // where the data must end
	pos, usize := b.Offset+size, int64(0)
	var c [6]byte
	for {
		if pos >= end {
			return errCorrupt
		}
		k := min(int64(len(c)), end-pos)
		if _, err := r.ReadAt(c[:k], pos); err != nil {
			return readErr(err)
		}
		ctl := c[0]
		switch {
		case ctl == 0:
			pos++
			if pos != end || usize != b.Size || hcsize >= 0 && hcsize != end-b.Offset-size || husize >= 0 && husize != usize {
				return errCorrupt
			}
			return nil
		case ctl <= 2:
			if k < 3 {
				return errCorrupt
			}
			n := int64(c[1])<<8 | int64(c[2]) + 1
			pos += 3 + n
			usize += n
		case ctl < 0x80:
			return errCorrupt
		default:
			if k < 5 {
				return errCorrupt
			}
			hdr := int64(5)
			if ctl >= 0xC0 {
				hdr = 6
			}
			pos += hdr + (int64(c[3])<<8 | int64(c[4])) + 1
			usize += int64(ctl&0x1F)<<16 | int64(c[1])<<8 | int64(c[2]) + 1
		}
		if usize > b.Size {
			return errCorrupt
		}
	}
}

// ErrCorrupt is CheckBlock's error for a block that does not match its
// record.
var ErrCorrupt = errCorrupt

// readErr turns the end of the input within a block into corruption.
func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errCorrupt
	}
	return err
}
