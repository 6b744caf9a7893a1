// Package xzdec decodes a complete .xz stream held in memory into a flat
// buffer, for BPX's xz sections: the output itself is the LZMA2
// dictionary, so matches are plain copies, with no circular window to wrap
// around. Decode decodes a whole stream; Start and DecodeTo decode one as
// far as asked and continue from there on the next call; Reader decodes
// one read from an io.Reader in memory bounded by its dictionary, in a
// flat window that slides between LZMA2 chunks.
//
// On one thread it decodes 1.2x-1.3x as fast as liblzma (xz -dc -T1) and
// 7-Zip (7zz e -so -mmt1) the sections of a default bpx package of the
// Go tree, and 1.05x-1.15x an xz -6 tar of it (bench/lzma-vs-xz.sh).
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
	"hash"
	"hash/crc32"
	"io"
	"math"
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

// Decoder holds the LZMA state (about 30 KB); reuse it across streams. A
// Decoder is not safe for concurrent use.
//
// Decode decodes a stream at once. Start and DecodeTo decode one in
// steps, each going only as far as asked: the range coder, the model and
// the position inside the block and the LZMA2 chunk are kept in between.
type Decoder struct {
	// MaxDict, if not 0, is the largest dictionary a block may declare.
	// This decoder needs no dictionary of its own (the output is one), but
	// a caller may want the limit a streaming decoder enforces.
	MaxDict uint32

	m  model
	rc rangeDecoder
	stream
}

// stream is where a Decoder is in its stream between calls of DecodeTo.
type stream struct {
	in    []byte
	out   []byte // decoded bytes, up to the current chunk's end inside one
	pos   int    // end of the decoded bytes in out
	orig  int    // len(dst) given to Start
	limit int    // the most len(out) may reach
	p     int    // next byte of in
	phase phase
	err   error

	flags     [2]byte // the stream flags, which the footer repeats
	single    bool    // StartBlock's: one block, described by one
	one       record
	checkSize int
	records   []record // the blocks so far, for the index

	// The current block.
	blockStart, dataStart int // its first byte in out, its data's in in
	hdrSize               int
	csize, usize          int64 // from its header, -1 if absent
	dict                  uint32

	// The current LZMA2 chunk.
	needDictReset, needProps bool
	dictStart                int // where the dictionary starts in out
	stored                   int // bytes left in a stored chunk

	// The block's check over out[checkFrom:pos] is still to compute;
	// crc holds it so far (CRC32 or CRC64), or sha.
	checkFrom int
	crc       uint64
	sha       hash.Hash

	// A Reader's input and output: see stream.go.
	src    io.Reader // nil for Start and Decode
	inBase int       // the offset in the stream of in[0]
	inBuf  []byte    // the input buffer in holds
	eof    bool      // src has no more bytes than in holds
	window int       // the most out holds (while the block's dictionary needs no more)
	served int       // the bytes of out Read has returned
	target int       // where run stops
	flat   bool      // StartReader's: input from src, output never slides
}

// phase is where a Decoder is in its stream.
type phase uint8

const (
	atBlock  phase = iota // at a block header or the index
	atChunk               // at an LZMA2 control byte
	inLZMA                // inside an LZMA chunk: rc and m hold its state
	inStored              // inside a stored chunk: stored bytes are left
	atEnd                 // the stream was decoded and verified
)

type record struct{ unpadded, usize uint64 }

// Decode appends the decoded contents of the .xz stream src to dst and
// returns the extended slice. It never appends more than limit bytes. On
// error dst[:len(dst)] is unchanged, but the bytes after it (up to its
// capacity) may have been overwritten.
func (d *Decoder) Decode(dst, src []byte, limit int) ([]byte, error) {
	d.Start(dst, src, limit)
	out, err := d.DecodeTo(limit)
	if err == nil && !d.Done() {
		err = errCorrupt // not reached: DecodeTo(limit) goes to the end
	}
	d.in, d.out = nil, nil // keep neither buffer
	if err != nil {
		return dst[:len(dst)], err
	}
	return out, nil
}

// Start begins decoding the complete .xz stream src, whose decoded bytes
// DecodeTo appends to dst[:len(dst)], at most limit of them: more is
// ErrLimit. The capacity of dst is reused; where it holds len(dst)+limit
// bytes the output never moves. The Decoder keeps src and dst until the
// next Start or Decode.
func (d *Decoder) Start(dst, src []byte, limit int) {
	d.reset(dst, src, limit)
	d.err = d.header()
}

// reset sets d up to decode src onto dst, at most limit bytes.
func (d *Decoder) reset(dst, src []byte, limit int) {
	orig := len(dst)
	sha, inBuf := d.sha, d.inBuf
	d.stream = stream{
		sha: sha, inBuf: inBuf,
		in: src, out: dst, pos: orig, orig: orig,
		// limit counts from len(dst); as a bound on the total length it
		// must not wrap.
		limit:   orig + min(limit, math.MaxInt-orig),
		records: d.records[:0],
	}
}

// DecodeTo decodes until at least n bytes (counted as limit is, after
// len(dst)) are out or the stream ends, and returns dst extended by all
// the bytes decoded so far. It goes at most one LZMA match (273 bytes)
// past n, but it also verifies any block check, index and footer that
// the stream has at that point before its next chunk. Only Done says
// that the stream's checks covered the bytes: until then they are
// unverified, and a caller that uses them must verify them itself.
// Errors are sticky: once DecodeTo has returned one it returns it again,
// with dst[:len(dst)].
func (d *Decoder) DecodeTo(n int) ([]byte, error) {
	if d.err == nil {
		target := d.limit
		if n < d.limit-d.orig {
			target = d.orig + max(n, 0)
		}
		d.err = d.run(target)
	}
	if d.err != nil {
		return d.out[:d.orig], d.err
	}
	return d.out[:d.pos], nil
}

// Done reports whether the whole stream was decoded and every check in
// it (block checks, sizes, index, footer, its exact end) passed.
func (d *Decoder) Done() bool { return d.err == nil && d.phase == atEnd }

// header reads the stream header.
func (d *Decoder) header() error {
	in := d.in
	if len(in) < 12 || !bytes.Equal(in[:6], headerMagic) {
		return errCorrupt
	}
	flags := in[6:8]
	if crc32.ChecksumIEEE(flags) != binary.LittleEndian.Uint32(in[8:12]) {
		return errCorrupt
	}
	n, err := checkSize(flags)
	if err != nil {
		return err
	}
	d.checkSize = n
	copy(d.flags[:], flags)
	d.p = 12
	return nil
}

// checkSize returns the size of the check of the stream flags, an error
// for flags that are invalid or name a check this package leaves to
// others.
func checkSize(flags []byte) (int, error) {
	if flags[0] != 0 || flags[1]&0xF0 != 0 {
		return 0, errCorrupt
	}
	switch flags[1] {
	case 0:
		return 0, nil
	case 1:
		return 4, nil
	case 4:
		return 8, nil
	case 10:
		return sha256.Size, nil
	}
	return 0, ErrUnsupported
}

// run decodes until pos reaches target inside a chunk, or to the stream's
// end.
func (d *Decoder) run(target int) error {
	d.target = target // in out, which slide moves
	for {
		switch d.phase {
		case inLZMA:
			if d.pos >= d.target {
				return nil
			}
			pos, err := d.m.decodeChunk(&d.rc, d.out, d.pos, min(d.target, len(d.out)), d.dictStart, d.dict)
			if err != nil {
				return err
			}
			d.pos = pos
			if pos < len(d.out) {
				return nil
			}
			if !d.rc.finished() {
				return errCorrupt
			}
			d.phase = atChunk
		case inStored:
			if d.pos >= d.target {
				return nil
			}
			k := min(d.stored, d.target-d.pos)
			copy(d.out[d.pos:d.pos+k], d.in[d.p:])
			d.pos, d.p, d.stored = d.pos+k, d.p+k, d.stored-k
			if d.stored == 0 {
				d.phase = atChunk
			}
		case atChunk:
			if err := d.fill(streamAhead); err != nil {
				return err
			}
			if err := d.chunk(); err != nil {
				return err
			}
		case atBlock:
			if d.single && len(d.records) > 0 {
				return d.endSingle()
			}
			if err := d.fill(streamAhead); err != nil {
				return err
			}
			if d.p >= len(d.in) {
				return errCorrupt
			}
			if d.in[d.p] == 0 {
				if d.single {
					return errCorrupt // an index where the block should be
				}
				if err := d.fill(maxStreamIndex + 1); err != nil {
					return err
				}
				if d.src != nil && !d.eof {
					return ErrUnsupported // see maxStreamIndex
				}
				return d.index()
			}
			if err := d.block(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// block reads a block header.
func (d *Decoder) block() error {
	d.hdrSize = (int(d.in[d.p]) + 1) * 4
	dict, csize, usize, err := parseBlockHeader(d.in[d.p:], d.hdrSize)
	if err != nil {
		return err
	}
	if d.MaxDict > 0 && dict > d.MaxDict {
		return ErrDict
	}
	d.dict, d.csize, d.usize = dict, csize, usize
	d.p += d.hdrSize
	d.dataStart, d.blockStart = d.p, d.pos
	d.checkFrom, d.crc = d.pos, 0
	if d.checkSize == sha256.Size {
		if d.sha == nil {
			d.sha = sha256.New()
		}
		d.sha.Reset()
	}
	if d.src != nil {
		if err := d.sizeWindow(); err != nil {
			return err
		}
	}
	d.needDictReset, d.needProps = true, true
	d.phase = atChunk
	return nil
}

// chunk reads an LZMA2 chunk's header, or the end of the block's data.
func (d *Decoder) chunk() error {
	in, p := d.in, d.p
	if p >= len(in) {
		return errCorrupt
	}
	ctl := in[p]
	p++
	if ctl == 0 {
		d.p = p
		return d.endBlock()
	}
	if ctl >= 0xE0 || ctl == 1 {
		d.needProps, d.needDictReset = true, false
		d.dictStart = d.pos
	} else if d.needDictReset {
		return errCorrupt
	}
	if ctl < 0x80 {
		if ctl > 2 || p+2 > len(in) {
			return errCorrupt
		}
		n := int(in[p])<<8 | int(in[p+1]) + 1
		p += 2
		if n > len(in)-p {
			return errCorrupt
		}
		if n > d.limit-d.pos {
			return ErrLimit
		}
		d.room(n)
		d.p, d.stored, d.phase = p, n, inStored
		return nil
	}
	if p+4 > len(in) {
		return errCorrupt
	}
	usize := int(ctl&0x1F)<<16 | int(in[p])<<8 | int(in[p+1]) + 1
	csize := int(in[p+2])<<8 | int(in[p+3]) + 1
	p += 4
	m := &d.m
	if ctl >= 0xC0 {
		if p >= len(in) {
			return errCorrupt
		}
		props := uint32(in[p])
		p++
		if props >= 9*5*5 {
			return errCorrupt
		}
		lc, lp, pb := props%9, props/9%5, props/45
		if lc+lp > 4 {
			return errCorrupt
		}
		m.lc, m.lp, m.pb = lc, lp, pb
		d.needProps = false
	} else if d.needProps {
		return errCorrupt
	}
	if ctl >= 0xA0 {
		m.reset()
	}
	if csize > len(in)-p {
		return errCorrupt
	}
	if usize > d.limit-d.pos {
		return ErrLimit
	}
	if err := d.rc.init(in[p : p+csize]); err != nil {
		return err
	}
	d.room(usize)
	d.p, d.phase = p+csize, inLZMA
	return nil
}

// endBlock checks a block's sizes, padding and check.
func (d *Decoder) endBlock() error {
	in, p := d.in, d.p
	cs, us := uint64(p-d.dataStart), uint64(d.pos-d.blockStart)
	if d.csize >= 0 && uint64(d.csize) != cs || d.usize >= 0 && uint64(d.usize) != us {
		return errCorrupt
	}
	for (d.inBase+p)%4 != 0 { // aligned in the stream, not in in
		if p >= len(in) || in[p] != 0 {
			return errCorrupt
		}
		p++
	}
	if p+d.checkSize > len(in) {
		return errCorrupt
	}
	d.updateCheck()
	switch d.checkSize { // stored little-endian
	case 4:
		if uint32(d.crc) != binary.LittleEndian.Uint32(in[p:]) {
			return errCorrupt
		}
	case 8:
		if d.crc != binary.LittleEndian.Uint64(in[p:]) {
			return errCorrupt
		}
	case sha256.Size:
		if !bytes.Equal(d.sha.Sum(nil), in[p:p+sha256.Size]) {
			return errCorrupt
		}
	}
	d.p = p + d.checkSize
	if d.src != nil && len(d.records) >= maxStreamRecords {
		return ErrUnsupported
	}
	d.records = append(d.records, record{uint64(d.hdrSize) + cs + uint64(d.checkSize), us})
	d.phase = atBlock
	return nil
}

// index checks the index and the footer, which must end the input.
func (d *Decoder) index() error {
	in, p := d.in, d.p
	// Index: indicator, count, records, padding, CRC32.
	idxStart := p
	p++
	n, k := uvarint(in[p:])
	if k <= 0 || n != uint64(len(d.records)) {
		return errCorrupt
	}
	p += k
	for _, r := range d.records {
		u, k1 := uvarint(in[p:])
		if k1 <= 0 {
			return errCorrupt
		}
		v, k2 := uvarint(in[p+k1:])
		if k2 <= 0 || u != r.unpadded || v != r.usize {
			return errCorrupt
		}
		p += k1 + k2
	}
	for (p-idxStart)%4 != 0 {
		if p >= len(in) || in[p] != 0 {
			return errCorrupt
		}
		p++
	}
	if p+4 > len(in) || crc32.ChecksumIEEE(in[idxStart:p]) != binary.LittleEndian.Uint32(in[p:]) {
		return errCorrupt
	}
	p += 4
	// Footer: CRC32, backward size, flags, magic.
	if len(in)-p < 12 {
		return errCorrupt
	}
	f := in[p : p+12]
	if crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f) ||
		uint64(binary.LittleEndian.Uint32(f[4:]))+1 != uint64(p-idxStart)/4 ||
		!bytes.Equal(f[8:10], d.flags[:]) || !bytes.Equal(f[10:], footerMagic) {
		return errCorrupt
	}
	if p+12 != len(in) {
		return ErrUnsupported // stream padding or another stream
	}
	d.p, d.phase = p+12, atEnd
	return nil
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

// updateCheck adds out[checkFrom:pos] to the block's check.
func (d *Decoder) updateCheck() {
	data := d.out[d.checkFrom:d.pos]
	d.checkFrom = d.pos
	switch d.checkSize {
	case 4:
		d.crc = uint64(crc32.Update(uint32(d.crc), crc32.IEEETable, data))
	case 8:
		d.crc = crc64Update(d.crc, data)
	case sha256.Size:
		d.sha.Write(data)
	}
}

// room extends out by n bytes: a chunk's.
func (d *Decoder) room(n int) {
	if d.src != nil && d.pos+n > cap(d.out) {
		// A Reader's window: slide it once it is full, or grow it to
		// no more than it needs.
		if d.pos+n > d.window {
			d.slide()
		}
		if need := d.pos + n; need > cap(d.out) {
			out := make([]byte, d.pos, min(max(2*cap(d.out), need), max(d.window, need)))
			copy(out, d.out[:d.pos])
			d.out = out
		}
	}
	d.out = grow(d.out, n)
}

// grow extends out by n bytes, reallocating only if its capacity is short.
func grow(out []byte, n int) []byte {
	if cap(out)-len(out) >= n {
		return out[:len(out)+n]
	}
	return append(out, make([]byte, n)...)
}
