package bpx

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/gobpx/bpx/internal/spool"
	"github.com/gobpx/bpx/internal/xzenc"
	"github.com/klauspost/compress/zlib"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// zlibWriters keeps idle zlib compressors (fixed-size state, about 1 MiB
// each) for zlibCompress, which returns them; Reset makes a used one as
// good as new without reallocating its tables.
var zlibWriters = newFreeList(max(2, runtime.GOMAXPROCS(0)), func() *zlib.Writer { return zlib.NewWriter(nil) })

// errNoGain stops a compressor once its output is as large as its input:
// the section will be stored raw.
var errNoGain = errors.New("bpx: compression does not shrink the section")

// capWriter forwards to w until more than limit bytes were written in
// total, then fails with errNoGain. Its error is sticky and kept, because
// a compressor may not pass it on (ulikunitz/xz drops some write errors).
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
func compressBody(in *spool.Buffer, out io.Writer, o *SectionOptions) (uint8, error) {
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
		err = zlibCompress(in, cw)
	case CompressXZ:
		flag = FlagXZ
		err = xzCompress(in, cw, xzDictSize(o, usize))
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

func zlibCompress(in *spool.Buffer, w io.Writer) error {
	zw := zlibWriters.get()
	zw.Reset(w)
	_, err := in.WriteTo(zw)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	zw.Reset(nil) // drop the reference to w before pooling
	zlibWriters.put(zw)
	return err
}

// xzCompress writes a single-block .xz stream with check NONE. Sections of
// up to fastXZLimit bytes go through internal/xzenc with pooled tables;
// larger ones stream through ulikunitz/xz, whose encoder has no Reset and
// allocates tables in proportion to the dictionary.
func xzCompress(in *spool.Buffer, w io.Writer, dict int) error {
	if in.Size() <= fastXZLimit {
		return xzCompressFast(in, w, dict)
	}
	cfg := xz.WriterConfig{
		DictCap:    dict,
		NoCheckSum: true,
		Matcher:    lzma.HashTable4,
	}
	xw, err := cfg.NewWriter(w)
	if err != nil {
		return err
	}
	if _, err := in.WriteTo(xw); err != nil {
		return err
	}
	return xw.Close()
}

// fastXZLimit is the largest section compressed in memory by xzenc: it
// holds the section and 4 bytes per position (at most 4 MiB) of hash
// chain. Pack's default sections are 1 MiB.
const fastXZLimit = 16 << 20

// xzJob is an encoder with its input buffer.
type xzJob struct {
	enc xzenc.Encoder
	buf []byte
}

// xzJobs keeps idle encoders (tables of at most 4.5 MiB) with their input
// buffers, which xzCompressFast, returning them, drops above
// maxPooledXZBuf.
var xzJobs = newFreeList[xzJob](max(2, runtime.GOMAXPROCS(0)), nil)

// maxPooledXZBuf is the largest input buffer kept on the free list.
const maxPooledXZBuf = 2 << 20

func xzCompressFast(in *spool.Buffer, w io.Writer, dict int) error {
	j := xzJobs.get()
	defer func() {
		if cap(j.buf) > maxPooledXZBuf {
			j.buf = nil
		}
		xzJobs.put(j)
	}()
	// One exactly sized copy of the section (see NewWriter's bound).
	buf, err := in.AppendTo(j.buf[:0])
	if err != nil {
		return err
	}
	j.buf = buf
	dict = min(max(dict, xzenc.MinDict), xzenc.MaxDict)
	return j.enc.Encode(w, j.buf, dict)
}
