// Package cdc cuts a byte stream into content-defined chunks: the cut
// points depend on the bytes around them, not on their offsets, so that an
// insertion or a removal moves only the cuts near it and two streams that
// share a run of bytes share the chunks inside it wherever the run lies.
// types/pack uses it for a package's chunk digests and package pull to
// find, in files a player already has, the chunks of a newer package.
//
// The function is FastCDC's (Xia et al., USENIX ATC 2016): a gear hash,
// h = h<<1 + gear[b], with normalized chunking. No cut falls before Min
// bytes; up to Avg bytes a cut needs log2(Avg)+2 chosen bits of h to be
// zero, after it log2(Avg)-2; at Max bytes the chunk is cut whatever the
// bytes. Chunks then average close to Avg. The gear table and the bit
// masks are part of the package file format (a package names its
// parameters, not the function): they must never change. TestVector pins
// them.
package cdc

import (
	"fmt"
	"io"
	"math/bits"
)

// Params are a chunking's sizes. Avg must be a power of two between
// MinAvg and MaxAvg, Min at least 64 and at most Avg, Max at least Avg and
// at most MaxMax.
type Params struct {
	Min, Avg, Max int
}

// Limits of Params.
const (
	MinAvg = 1 << 8
	MaxAvg = 1 << 26
	MaxMax = 1 << 28
)

// ForSize returns the parameters used for a stream of size bytes: chunks
// of 16 KiB on average, larger for streams beyond 16 GiB so that a stream
// has at most about a million chunks (what a reader must keep per chunk
// is then bounded whatever the size), Min a quarter and Max four times
// the average.
func ForSize(size int64) Params {
	avg := 16 << 10
	for int64(avg)<<20 < size && avg < MaxAvg {
		avg <<= 1
	}
	return Params{Min: avg / 4, Avg: avg, Max: avg * 4}
}

// Check reports whether p is valid.
func (p Params) Check() error {
	switch {
	case p.Avg < MinAvg || p.Avg > MaxAvg || p.Avg&(p.Avg-1) != 0:
		return fmt.Errorf("cdc: average chunk size %d: not a power of two in [%d, %d]", p.Avg, MinAvg, MaxAvg)
	case p.Min < 64 || p.Min > p.Avg:
		return fmt.Errorf("cdc: minimum chunk size %d: not in [64, %d]", p.Min, p.Avg)
	case p.Max < p.Avg || p.Max > MaxMax:
		return fmt.Errorf("cdc: maximum chunk size %d: not in [%d, %d]", p.Max, p.Avg, MaxMax)
	}
	return nil
}

// masks returns the masks before and after the average size: the top
// log2(Avg)+2 and log2(Avg)-2 bits of the hash (the top bits have seen the
// most bytes).
func (p Params) masks() (small, large uint64) {
	b := bits.TrailingZeros(uint(p.Avg))
	return ^uint64(0) << (64 - (b + 2)), ^uint64(0) << (64 - (b - 2))
}

// Cut returns the length of the first chunk of data, which holds the
// start of the stream or of a chunk: len(data) when data is shorter than
// Max and holds no cut (the end of the stream is the last cut). p must be
// valid.
func (p Params) Cut(data []byte) int {
	n := len(data)
	if n <= p.Min {
		return n
	}
	n = min(n, p.Max)
	mid := min(n, p.Avg)
	small, large := p.masks()
	var h uint64
	i := p.Min
	for ; i < mid; i++ {
		h = h<<1 + gear[data[i]]
		if h&small == 0 {
			return i + 1
		}
	}
	for ; i < n; i++ {
		h = h<<1 + gear[data[i]]
		if h&large == 0 {
			return i + 1
		}
	}
	return n
}

// Chunker reads a stream and returns its chunks one at a time.
type Chunker struct {
	r    io.Reader
	p    Params
	buf  []byte
	lo   int // start of the unreturned bytes in buf
	hi   int // end of the bytes read
	eof  bool
	err  error
	Seen int64 // bytes returned so far
}

// NewChunker returns a Chunker of r with parameters p, which must be
// valid. It buffers 2·Max bytes, more for a larger buf.
func NewChunker(r io.Reader, p Params, buf []byte) *Chunker {
	if len(buf) < 2*p.Max {
		buf = make([]byte, 2*p.Max)
	}
	return &Chunker{r: r, p: p, buf: buf}
}

// NewChunkerFor is NewChunker for a stream r of at most n bytes: it cuts
// the same chunks, buffering 2·min(Max, n) bytes (plus one), so that a
// chunking of large chunks costs a short stream no more than the stream.
// For a longer stream it cuts as NewChunker every chunk of less than n
// bytes; where NewChunker would cut a chunk of n bytes or more, it cuts
// one of n bytes or more too, but not necessarily the same: what a check
// of a list of chunks shorter than n needs.
func NewChunkerFor(r io.Reader, n int64, p Params, buf []byte) *Chunker {
	if n >= int64(p.Max) {
		return NewChunker(r, p, buf)
	}
	if need := 2*int(n) + 1; len(buf) < need {
		buf = make([]byte, need)
	}
	return &Chunker{r: r, p: p, buf: buf}
}

// Next returns the next chunk, valid until the next call, or io.EOF after
// the last one; a read error is returned as it is.
func (c *Chunker) Next() ([]byte, error) {
	if c.hi-c.lo < c.p.Max && !c.eof && c.err == nil {
		c.fill()
	}
	if c.lo == c.hi {
		if c.err != nil {
			return nil, c.err
		}
		return nil, io.EOF
	}
	if c.err != nil {
		return nil, c.err // the cut could depend on the lost bytes
	}
	n := c.p.Cut(c.buf[c.lo:c.hi])
	chunk := c.buf[c.lo : c.lo+n]
	c.lo += n
	c.Seen += int64(n)
	return chunk, nil
}

// fill moves the unreturned bytes to the front and reads until the buffer
// holds Max bytes or the stream ends.
func (c *Chunker) fill() {
	c.hi = copy(c.buf, c.buf[c.lo:c.hi])
	c.lo = 0
	for empty := 0; c.hi < c.p.Max && c.hi < len(c.buf); {
		k, err := c.r.Read(c.buf[c.hi:])
		c.hi += k
		switch {
		case err == io.EOF:
			c.eof = true
			return
		case err != nil:
			c.err = err
			return
		case k == 0:
			if empty++; empty == 100 {
				c.err = io.ErrNoProgress
				return
			}
		}
	}
}
