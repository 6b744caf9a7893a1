package bpx

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/gobpx/bpx/internal/spool"
	"github.com/gobpx/bpx/internal/xzenc"
	"github.com/klauspost/compress/zlib"
)

// zlibWriters keeps idle zlib compressors (fixed-size state, about 1 MiB
// each) for zlibCompress, which returns them; Reset makes a used one as
// good as new without reallocating its tables.
var zlibWriters = [...]*freeList[zlib.Writer]{
	LevelDefault: newZlibWriters(LevelDefault),
	LevelFast:    newZlibWriters(LevelFast),
	LevelMax:     newZlibWriters(LevelMax),
}

func newZlibWriters(l Level) *freeList[zlib.Writer] {
	return newFreeList(max(2, runtime.GOMAXPROCS(0)), func() *zlib.Writer {
		zw, err := zlib.NewWriterLevel(nil, l.zlibLevel())
		if err != nil {
			panic(err) // the levels are constants in range
		}
		return zw
	})
}

// errNoGain stops a compressor once its output is as large as its input:
// the section will be stored raw.
var errNoGain = errors.New("bpx: compression does not shrink the section")

// capWriter forwards to w until more than limit bytes were written in
// total, then fails with errNoGain. Its error is sticky and kept, so that
// it is reported even by a compressor that does not pass it on.
type capWriter struct {
	w     io.Writer
	n     int64
	limit int64
	err   error
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.n+int64(len(p)) > c.limit {
		c.err = errNoGain
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// xzDictSize returns the dictionary an xz section of usize bytes declares:
// o.XZDictSize if set, else usize clamped to [4 KiB, DefaultXZDictSize].
func xzDictSize(o *SectionOptions, usize int64) int {
	if o.XZDictSize != 0 {
		return o.XZDictSize
	}
	return int(min(max(usize, minXZDictSize), DefaultXZDictSize))
}

// compressBody compresses the finished body in (usize bytes) into out as
// o.Compression asks. It returns the compression flag to store, or 0 with
// out left for the caller to discard when the section is to be stored raw:
// no compression asked, usize at most o.Threshold, or no gain.
// maxEnc keeps the LevelMax encoders of the calling Writer.
func compressBody(in *spool.Buffer, out io.Writer, o *SectionOptions, maxEnc *freeList[xzenc.Encoder]) (uint8, error) {
	usize := in.Size()
	if o.Compression == CompressNone || usize == 0 || usize <= int64(o.Threshold) {
		return 0, nil
	}
	// The stream must end up strictly smaller than the data to be kept.
	cw := &capWriter{w: out, limit: usize - 1}
	var err error
	var flag uint8
	switch o.Compression {
	case CompressZlib:
		flag = FlagZlib
		err = zlibCompress(in, cw, o.Level)
	case CompressXZ:
		flag = FlagXZ
		err = xzCompress(in, cw, xzDictSize(o, usize), o.Level, o.BlockSize, o.cuts, maxEnc)
	case CompressZstd:
		flag = FlagZstd
		err = zstdCompress(in, cw, usize, o.Level)
	}
	if cw.err != nil {
		err = cw.err
	}
	if errors.Is(err, errNoGain) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("bpx: %v compression: %w", o.Compression, err)
	}
	return flag, nil
}

func zlibCompress(in *spool.Buffer, w io.Writer, l Level) error {
	zw := zlibWriters[l].get()
	zw.Reset(w)
	_, err := in.WriteTo(zw)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	zw.Reset(nil) // drop the reference to w before pooling
	zlibWriters[l].put(zw)
	return err
}

// xzCompress writes an .xz stream with check NONE through internal/xzenc
// at level l, in blocks of block bytes (0: one block), which holds at most
// a 4 MiB window of the section whatever its size (up to 12 MiB at
// LevelMax), with pooled tables.
func xzCompress(in *spool.Buffer, w io.Writer, dict int, l Level, block int64, cuts []int64, maxEnc *freeList[xzenc.Encoder]) error {
	pool := xzEncoders
	if l == LevelMax {
		pool = maxEnc
	}
	e := pool.get()
	e.Options = l.xzOptions()
	e.BlockSize = block
	if block > 0 {
		dict = int(min(int64(dict), block))
	}
	dict = min(max(dict, xzenc.MinDict), xzenc.MaxDict)
	if err := e.Reset(w, dict, in.Size()); err != nil {
		return err
	}
	var dst io.Writer = e
	if len(cuts) > 0 {
		dst = &cutWriter{e: e, cuts: cuts}
	}
	if _, err := in.WriteTo(dst); err != nil {
		return err // e, still holding w, is left to the collector
	}
	err := e.Close()
	pool.put(e)
	return err
}

// xzEncoders keeps idle encoders of LevelDefault and LevelFast (window and
// tables of at most 8.5 MiB) for xzCompress, which returns them after a
// successful stream. A bounded free list rather than a sync.Pool, which
// the garbage collector empties: reallocating the tables costs more than
// encoding a small section (fresh memory is slow to fault in).
var xzEncoders = newFreeList(max(2, runtime.GOMAXPROCS(0)), func() *xzenc.Encoder { return new(xzenc.Encoder) })

// cutWriter writes to e, ending a block at each of cuts (offsets in the
// data written, increasing).
type cutWriter struct {
	e    *xzenc.Encoder
	cuts []int64
	pos  int64
}

func (c *cutWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := len(p)
		if len(c.cuts) > 0 && c.cuts[0]-c.pos < int64(k) {
			k = int(c.cuts[0] - c.pos)
		}
		if _, err := c.e.Write(p[:k]); err != nil {
			return n - len(p), err
		}
		p, c.pos = p[k:], c.pos+int64(k)
		if len(c.cuts) > 0 && c.pos == c.cuts[0] {
			c.e.EndBlock()
			c.cuts = c.cuts[1:]
		}
	}
	return n, nil
}
