// Package xzenc is a fast single-block .xz (LZMA2) encoder for BPX's xz
// sections: Encode compresses data held in memory, and Reset, Write and
// Close a stream of any length through a window of at most 4 MiB (12 MiB
// in Normal mode with a large dictionary; see Options).
//
// Its zero Options implement what xz's "fast" mode does (presets 0 to 3):
// a hash chain over 4-byte prefixes and greedy parsing with one step of
// lazy evaluation, with lc=3, lp=0, pb=2; it searches 16 chain candidates
// per position where xz -1 searches 8. Mode Normal is xz's "normal" mode
// (presets 4 to 9): price-based optimal parsing over a hash chain or a
// binary tree; PresetDefault and PresetMax use it.
//
// It exists because the general-purpose encoder of
// github.com/ulikunitz/xz allocates its dictionary and hash tables anew
// for every stream and is much slower, on small sections and large ones
// alike (BenchmarkEncode, BenchmarkEncodeLarge); packing a source tree
// spent most of its time there.
//
// Streams have check type None and blocks without size fields (one, or
// one per Options.BlockSize of data, each starting afresh); every .xz
// decoder reads them.
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
// never reach farther back), cut into blocks of Options.BlockSize if it is
// set. It reads data in place, without a copy, and returns the first
// error of w.
func (e *Encoder) Encode(w io.Writer, data []byte, dict int) error {
	if int64(len(data)) > maxInPlace {
		// Positions + 1 must fit the hash tables' uint32s.
		if err := e.Reset(w, dict, int64(len(data))); err != nil {
			return err
		}
		e.Write(data)
		return e.Close()
	}
	block := int64(len(data))
	if e.BlockSize > 0 {
		block = min(block, e.BlockSize)
	}
	if err := e.begin(w, dict, block); err != nil {
		return err
	}
	for {
		n := min(int64(len(data)), block)
		e.data, e.total = data[:n], n
		if data = data[n:]; len(data) == 0 {
			break
		}
		e.endBlock()
		e.beginBlock(min(int64(len(data)), block))
	}
	return e.end()
}

// Reset starts a stream to w as Encode does, for data given to Write and
// ended by Close. size is how much data is expected (a hint for sizing
// the tables and the window: more or less is fine). Whatever the stream's
// length, e holds at most its window of it (4 MiB, more in Normal mode:
// see Options), and a stream of up to the window comes out exactly as
// Encode writes it.
func (e *Encoder) Reset(w io.Writer, dict int, size int64) error {
	if err := e.begin(w, dict, e.blockHint(size)); err != nil {
		return err
	}
	e.startWindow(size)
	return nil
}

// blockHint is the size of the next block of a stream of size more bytes.
func (e *Encoder) blockHint(size int64) int64 {
	if e.BlockSize > 0 {
		return min(size, e.BlockSize)
	}
	return size
}

// startWindow sets Write's window up for a block of about size bytes.
func (e *Encoder) startWindow(size int64) {
	want := int(min(max(size, 64<<10), int64(e.winMax)))
	if cap(e.win) < want {
		e.win = make([]byte, 0, want)
	}
	e.data = e.win[:0:min(cap(e.win), e.winMax)]
}

// Write adds p to the stream started by Reset. It returns the first error
// of the stream's writer.
func (e *Encoder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && e.err == nil {
		if e.blockFull {
			// Only now that more data comes: a stream that ends with a
			// full block has no empty one after it.
			next := e.BlockSize
			if next == 0 { // ended by EndBlock
				next = int64(e.winMax)
			}
			e.endBlock()
			e.beginBlock(next)
			e.startWindow(next)
			e.blockFull = false
		}
		if len(e.data) == cap(e.data) {
			e.makeRoom()
		}
		room := cap(e.data) - len(e.data)
		if e.BlockSize > 0 {
			room = int(min(int64(room), e.BlockSize-e.total))
		}
		k := copy(e.data[len(e.data):len(e.data)+room], p)
		e.data = e.data[:len(e.data)+k]
		p = p[k:]
		e.total += int64(k)
		e.growChain(len(e.data))
		e.blockFull = e.BlockSize > 0 && e.total == e.BlockSize
	}
	if e.err != nil {
		return n - len(p), e.err
	}
	return n, nil
}

// EndBlock ends the block being written where the data given to Write so
// far ends: the next data starts a new block, which decodes without the
// data before it, besides the blocks of Options.BlockSize. A block that
// holds no data yet is not ended.
func (e *Encoder) EndBlock() {
	if e.total > 0 {
		e.blockFull = true
	}
}

// Close encodes the rest of the data given to Write and ends the stream.
// It returns the first error of the stream's writer.
func (e *Encoder) Close() error { return e.end() }

// begin checks dict, prepares the tables and writes the stream header and
// the first block's header, for a block of about size bytes.
func (e *Encoder) begin(w io.Writer, dict int, size int64) error {
	if dict < MinDict || dict > MaxDict {
		return errors.New("xzenc: dictionary size out of range")
	}
	if err := e.Options.Validate(); err != nil {
		return err
	}
	e.dict, e.records, e.blockFull = dict, e.records[:0], false
	e.cw = countWriter{w: w}
	e.w, e.err = &e.cw, nil

	// Stream header.
	var buf [16]byte
	b := append(buf[:0], xzMagic...)
	b = append(b, streamFlags...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(streamFlags))
	e.write(b)
	e.beginBlock(size)
	return e.err
}

// beginBlock prepares the tables for a block of about size bytes, writes
// its header and starts its LZMA2 data, with an empty dictionary.
func (e *Encoder) beginBlock(size int64) {
	e.prepare(size, e.dict)
	// Block header: size, flags (one filter, no sizes), LZMA2 filter with
	// its dictionary byte, padding, CRC32.
	var buf [16]byte
	b := append(buf[:0], 12/4-1, 0, 0x21, 1, dictByte(e.dict), 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	e.write(b)
	e.blockStart = e.cw.n - 12
	e.startLZMA2()
}

// endBlock encodes what is left of the block's data, ends its LZMA2 data
// and pads it, and records it for the index.
func (e *Encoder) endBlock() {
	e.run(true)
	unpadded := e.cw.n - e.blockStart
	var zeros [4]byte
	e.write(zeros[:(4-unpadded%4)%4])
	e.records = append(e.records, record{unpadded: uint64(unpadded), usize: uint64(e.total)})
}

// record is an index record: a block's size without its padding and the
// size of its data.
type record struct{ unpadded, usize uint64 }

// end ends the last block and writes the index and the stream footer.
func (e *Encoder) end() error {
	defer func() { e.data, e.w, e.cw.w = nil, nil, nil }()
	e.endBlock()

	// Index: indicator, number of records, the records, padding, CRC32.
	idx := append(e.hdr[:0], 0)
	idx = binary.AppendUvarint(idx, uint64(len(e.records)))
	for _, r := range e.records {
		idx = binary.AppendUvarint(idx, r.unpadded)
		idx = binary.AppendUvarint(idx, r.usize)
	}
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	e.hdr = idx
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

// maxInPlace is the most data Encode reads in place; beyond it, data goes
// through the window as if given to Write. A variable for tests.
var maxInPlace int64 = 1<<32 - 2

// dictByte encodes the smallest dictionary size of the form 2^n or
// 2^n + 2^(n-1) that is at least d.
func dictByte(d int) byte {
	for b := byte(0); b < 40; b++ {
		if (2|uint64(b)&1)<<(b/2+11) >= uint64(d) {
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
