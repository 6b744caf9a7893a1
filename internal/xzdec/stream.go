package xzdec

import (
	"io"
	"math"
)

const (
	// DefaultMaxDict is the largest dictionary a Reader accepts when
	// NewReader or Reset is given 0: xz -9's.
	DefaultMaxDict = 64 << 20

	// maxRead is the most a Read decodes at once, and so the most output
	// decoded but not yet returned that the window must keep.
	maxRead = 1 << 20
	// maxChunk is the most an LZMA2 chunk decodes to.
	maxChunk = 2 << 20
	// streamAhead is the input a Reader holds before reading a header:
	// an LZMA2 chunk's (control byte, 5 header bytes, up to 64 KiB of
	// data), a block header (up to 1 KiB), or a block's padding and
	// check.
	streamAhead = 1<<16 + 64
	// maxStreamIndex is the largest index and footer a Reader reads (it
	// checks that they end the input, so it holds them whole), and
	// maxStreamRecords the most blocks it keeps for the index, 16 bytes
	// each: 32768 blocks, 4 GiB of 128 KiB blocks. A stream with more is
	// ErrUnsupported.
	maxStreamIndex   = 64 << 10
	maxStreamRecords = maxStreamIndex / 2
)

// Reader decodes an .xz stream read from an io.Reader, with the same
// checks, errors and limits as Decoder.Decode, in bounded memory: its
// output window holds the dictionary, the output of one Read (at most
// 1 MiB and a match) and one LZMA2 chunk (at most 2 MiB), so at most
// max(dictionary, 1 MiB + 273) + 2 MiB + 16 bytes; its input buffer holds 128
// KiB, and the index of up to maxStreamRecords blocks 512 KiB more. The
// window slides, copying what it keeps to its front, only when a chunk
// does not fit: matches stay plain copies within one flat buffer.
//
// Read returns the bytes as they are decoded: like DecodeTo's, they are
// verified by the block's check only when the block ends, which Read
// reports as an error if it fails. io.EOF comes only after the whole
// stream was checked. A Reader is not safe for concurrent use.
type Reader struct {
	d       Decoder
	started bool
}

// NewReader returns a Reader of the .xz stream in r. maxDict is the
// largest dictionary a block may declare (DefaultMaxDict if 0): it bounds
// the memory the Reader takes.
func NewReader(r io.Reader, maxDict uint32) *Reader {
	z := new(Reader)
	z.Reset(r, maxDict)
	return z
}

// Reset makes z read a new stream from r as NewReader does, keeping its
// buffers.
func (z *Reader) Reset(r io.Reader, maxDict uint32) {
	d := &z.d
	if maxDict == 0 {
		maxDict = DefaultMaxDict
	}
	d.MaxDict = maxDict
	d.stream = stream{
		out: d.out[:0], inBuf: d.inBuf, in: d.inBuf[:0], sha: d.sha, records: d.records[:0],
		src: r, limit: math.MaxInt,
	}
	z.started = false
}

// StateSize is about what a Decoder holds besides its buffers: the LZMA
// model's probabilities and the range coder.
const StateSize = 32 << 10

// Footprint returns the bytes z holds: its window, its input buffer and
// StateSize.
func (z *Reader) Footprint() int64 { return int64(cap(z.d.out)) + z.d.Footprint() }

// Footprint returns the bytes d holds besides its output: its input
// buffer (StartReader's), the index records and StateSize.
func (d *Decoder) Footprint() int64 {
	return int64(cap(d.inBuf)+16*cap(d.records)) + StateSize
}

// StartReader begins decoding the .xz stream read from src as Start does
// one held whole: DecodeTo appends its decoded bytes to dst[:len(dst)], at
// most limit of them, where they stay (the output is the dictionary, as
// for Start), but the input is read only as far as the bytes decoded need
// it, an LZMA2 chunk (at most 64 KiB) or 128 KiB at a time. A stream whose
// index exceeds 64 KiB is ErrUnsupported, as for a Reader.
func (d *Decoder) StartReader(dst []byte, src io.Reader, limit int) {
	orig := len(dst)
	d.stream = stream{
		sha: d.sha, inBuf: d.inBuf, in: d.inBuf[:0], records: d.records[:0],
		out: dst, pos: orig, orig: orig,
		limit: orig + min(limit, math.MaxInt-orig),
		src:   src, flat: true,
	}
	if d.err = d.fill(streamAhead); d.err == nil {
		d.err = d.header()
	}
}

// Read reads decoded bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	d := &z.d
	if !z.started {
		z.started = true
		if d.err = d.fill(streamAhead); d.err == nil {
			d.err = d.header()
		}
	}
	for d.served == d.pos {
		if d.err != nil {
			return 0, d.err
		}
		if d.phase == atEnd {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		d.err = d.run(d.pos + min(len(p), maxRead))
	}
	n := copy(p, d.out[d.served:d.pos])
	d.served += n
	return n, nil
}

// fill makes in hold at least need bytes from p on, or all that is left
// of a Reader's input; it does nothing for a stream given whole. Only
// between chunks: it moves in's bytes.
func (d *Decoder) fill(need int) error {
	if d.src == nil || d.eof || len(d.in)-d.p >= need {
		return nil
	}
	if cap(d.inBuf) < need {
		d.inBuf = make([]byte, 0, max(need, 2*streamAhead))
	}
	n := copy(d.inBuf[:cap(d.inBuf)], d.in[d.p:])
	d.in = d.inBuf[:n]
	d.dataStart -= d.p
	d.inBase += d.p
	d.p = 0
	for empty := 0; len(d.in) < need; {
		k, err := d.src.Read(d.in[len(d.in):cap(d.in)])
		d.in = d.in[:len(d.in)+k]
		if err == io.EOF {
			d.eof = true
			break
		}
		if err != nil {
			return err
		}
		if k > 0 {
			empty = 0
		} else if empty++; empty == 100 { // as bufio gives up
			return io.ErrNoProgress
		}
	}
	return nil
}

// sizeWindow sets the window for a block's dictionary.
func (d *Decoder) sizeWindow() error {
	if d.flat {
		d.window = math.MaxInt // the output is the dictionary: never slide
		return nil
	}
	if d.dict > d.MaxDict {
		return ErrDict
	}
	d.window = max(int(d.dict), maxRead+maxMatchLen) + maxChunk + 16
	return nil
}

// slide moves what the window must keep to its front: the dictionary,
// or less if it was reset since, and whatever Read has not returned. It
// moves a multiple of 16 bytes, so that the position bits of LZMA (at
// most 4, from the low bits of pos) stay the same.
func (d *Decoder) slide() {
	d.updateCheck()
	from := max(d.pos-int(d.dict), d.dictStart)
	from = min(from, d.served) &^ 15
	if from <= 0 {
		return
	}
	n := copy(d.out[:cap(d.out)], d.out[from:d.pos])
	d.out = d.out[:n]
	d.pos -= from
	d.served -= from
	d.target -= from
	d.blockStart -= from
	d.checkFrom -= from
	d.dictStart = max(d.dictStart-from, 0)
}
