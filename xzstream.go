package bpx

import (
	"errors"
	"io"
	"sync"

	"github.com/gobpx/bpx/internal/xzdec"
)

// xzStreamDecoder reads an xz section too large to decode whole with
// internal/xzdec's Reader, whose memory is bounded by the dictionary (a
// window of max(dictionary, 1 MiB) + 2 MiB, and 128 KiB of input) like the
// xi2-lineage decoder of decompress.go, and which decodes at the speed of
// the flat decoder (BenchmarkXZSection). A stream it leaves to others
// (xzdec.ErrUnsupported: several streams, stream padding, filters other
// than LZMA2) goes to that decoder, which decodes it again from the start
// and skips the bytes already returned.
type xzStreamDecoder struct {
	zr      xzdec.Reader
	src     *io.SectionReader
	maxDict uint32
	n       int64   // bytes returned
	slow    decoder // the xi2-lineage decoder, after a fallback
}

// xzStreams keeps idle stream decoders, one sync.Pool per dictionary limit
// as xzPools does, for the same reason: an idle decoder keeps a window as
// large as the last dictionary, up to that limit.
var xzStreams sync.Map // uint32 -> *sync.Pool

func getXZStream(src *io.SectionReader, maxDict uint32) decoder {
	p, ok := xzStreams.Load(maxDict)
	if !ok {
		p, _ = xzStreams.LoadOrStore(maxDict, new(sync.Pool))
	}
	d, _ := p.(*sync.Pool).Get().(*xzStreamDecoder)
	if d == nil {
		d = new(xzStreamDecoder)
	}
	d.zr.Reset(src, maxDict)
	d.src, d.maxDict, d.n, d.slow = src, maxDict, 0, nil
	return d
}

func (d *xzStreamDecoder) Read(p []byte) (int, error) {
	if d.slow != nil {
		return d.slow.Read(p)
	}
	k, err := d.zr.Read(p)
	d.n += int64(k)
	if errors.Is(err, xzdec.ErrUnsupported) {
		if k > 0 {
			return k, nil // the error comes again at the next Read
		}
		if err := d.fallback(); err != nil {
			return 0, err
		}
		return d.slow.Read(p)
	}
	return k, err
}

// fallback starts the xi2-lineage decoder over the stream and skips what
// was returned.
func (d *xzStreamDecoder) fallback() error {
	if _, err := d.src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	slow, err := getXZ(d.src, d.maxDict)
	if err != nil {
		return err
	}
	d.slow = slow
	if k, err := io.CopyN(io.Discard, slow, d.n); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // shorter on the second pass
		}
		return errors.Join(errors.New("xz stream decodes differently on a second pass"), err)
	} else if k != d.n {
		return io.ErrUnexpectedEOF
	}
	return nil
}

func (d *xzStreamDecoder) footprint() int64 {
	if d.slow != nil {
		return d.zr.Footprint() + d.slow.footprint()
	}
	return d.zr.Footprint()
}

func (d *xzStreamDecoder) finish() error {
	if d.slow != nil {
		return d.slow.finish()
	}
	return nil
}

func (d *xzStreamDecoder) put() {
	if d.slow != nil {
		d.slow.put()
		d.slow = nil
	}
	d.zr.Reset(eofReader{}, d.maxDict) // drop the reference to the section
	d.src = nil
	if p, ok := xzStreams.Load(d.maxDict); ok {
		p.(*sync.Pool).Put(d)
	}
}
