package bpx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/gobpx/bpx/internal/xzdec"
	"github.com/klauspost/compress/zlib"
	"github.com/mikelolasagasti/xz"
)

// decoder is a pooled decompressor bound to one section's stored bytes.
type decoder interface {
	io.Reader
	// finish is called at the decoder's EOF to check that the stored
	// bytes held nothing after the stream.
	finish() error
	// put returns the decoder to its pool.
	put()
	// footprint is about how many bytes the decoder holds.
	footprint() int64
}

// zlibFootprint is about what a zlib decoder holds: its bufio.Reader's
// 32 KiB, the inflater's 32 KiB window and its tables.
const zlibFootprint = 80 << 10

// xi2Footprint is what the xi2-lineage xz decoder is counted as holding:
// it does not say, and holds the dictionary its stream declares (8 MiB
// for xz -6), 1 MiB at most for the packages this module writes by
// default. It only decodes streams the faster decoders leave to it.
const xi2Footprint = 8 << 20

// zlibDecoder reads an RFC 1950 stream. The bufio.Reader gives the inflater
// an io.ByteReader, so it does not wrap (and allocate) one itself, and keeps
// ReadAt calls large.
type zlibDecoder struct {
	br  *bufio.Reader
	zr  io.ReadCloser
	src *io.SectionReader
}

// zlibDecoders keeps idle zlib decoders, about 80 KiB each (fixed-size
// buffers and inflater state); their put method returns them.
var zlibDecoders = newFreeList[zlibDecoder](4*runtime.GOMAXPROCS(0), nil)

func getZlib(src *io.SectionReader) (decoder, error) {
	d := zlibDecoders.get()
	if d.br == nil {
		d.br = bufio.NewReaderSize(src, 32<<10)
	} else {
		d.br.Reset(src)
	}
	d.src = src
	var err error
	if d.zr == nil {
		d.zr, err = zlib.NewReader(d.br)
	} else {
		err = d.zr.(zlib.Resetter).Reset(d.br, nil)
	}
	if err != nil {
		if d.zr != nil {
			d.put()
		}
		return nil, err
	}
	return d, nil
}

func (d *zlibDecoder) Read(p []byte) (int, error) { return d.zr.Read(p) }

func (d *zlibDecoder) footprint() int64 { return zlibFootprint }

func (d *zlibDecoder) finish() error {
	pos, _ := d.src.Seek(0, io.SeekCurrent)
	if left := int64(d.br.Buffered()) + d.src.Size() - pos; left > 0 {
		return fmt.Errorf("%d bytes after the end of the zlib stream", left)
	}
	return nil
}

func (d *zlibDecoder) put() {
	d.br.Reset(nil)
	d.src = nil
	zlibDecoders.put(d)
}

// xzDecoder reads a complete .xz stream (any check type, multi-block,
// concatenated streams and stream padding) with a bounded dictionary. The
// decoder reads its input in 8 KiB chunks itself, so no bufio is needed.
type xzDecoder struct {
	zr   *xz.Reader
	pool *sync.Pool
}

// xzPools keeps idle streaming xz decoders, one sync.Pool per dictionary
// limit since the limit is fixed when a decoder is created. An idle
// decoder holds the dictionary its last stream declared, up to that limit:
// no size cap is possible, so these are sync.Pools, which the garbage
// collector empties (see freeList). Their put method returns them.
var xzPools sync.Map // uint32 -> *sync.Pool

func getXZ(src *io.SectionReader, dictMax uint32) (decoder, error) {
	pool := poolOf(&xzPools, dictMax)
	d, _ := pool.Get().(*xzDecoder)
	var err error
	if d == nil {
		var zr *xz.Reader
		zr, err = xz.NewReader(src, dictMax)
		if zr != nil {
			d = &xzDecoder{zr: zr, pool: pool}
		}
	} else {
		err = d.zr.Reset(src)
	}
	if err != nil {
		if d != nil {
			d.put()
		}
		return nil, err
	}
	return d, nil
}

func (d *xzDecoder) Read(p []byte) (int, error) { return d.zr.Read(p) }

func (d *xzDecoder) finish() error { return nil }

func (d *xzDecoder) footprint() int64 { return xi2Footprint }

func (d *xzDecoder) put() {
	d.zr.Reset(eofReader{}) // drop the reference to the section
	d.pool.Put(d)
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func isMemlimit(err error) bool {
	return errors.Is(err, xz.ErrMemlimit) || errors.Is(err, xzdec.ErrDict)
}
