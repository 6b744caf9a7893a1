package bpx

import (
	"io"
	"runtime"

	"github.com/gobpx/bpx/internal/xzdec"
)

// maxFlatXZ is the largest xz section (uncompressed) decoded whole by
// internal/xzdec, which is faster than the streaming decoder
// (BenchmarkXZSection, internal/xzdec's BenchmarkDecode) because its
// output is its dictionary: matches are plain copies, with no window to
// wrap around and no state to save between Reads. The price is memory: a
// reader of such a section holds all its stored and decoded bytes, and
// Section.Open of a larger section must not, since the package promises
// memory bounded by the dictionary (see Security in the package doc). So
// larger sections, and streams xzdec leaves to others, go to the
// streaming decoder of decompress.go with a dictionary-sized window.
const maxFlatXZ = 4 << 20

// flatXZStoredLimit is the most stored bytes a section of usize bytes may
// have to be decoded whole: the flat decoder reads them all into memory,
// and a real stream is at most a little larger than its data (stored
// chunks add 3 bytes per 64 KiB). A larger one streams instead.
func flatXZStoredLimit(usize int64) int64 { return usize + usize/16 + 64<<10 }

// flatXZDecoder decodes a whole .xz section on first Read into a buffer
// it then serves. Streams it leaves to others (filters other than LZMA2,
// SHA-256 checks, several streams), damaged streams and streams longer
// than the section's size go to the streaming decoder, which reads them
// from the start and reports errors as it always has.
type flatXZDecoder struct {
	src     *io.SectionReader
	want    int // the section's uncompressed size
	maxDict uint32
	dec     xzdec.Decoder
	in, out []byte
	off     int     // next byte of out to serve
	done    bool    // out is decoded
	slow    decoder // the streaming decoder, after a fallback
}

// flatXZDecoders keeps idle flat decoders with their buffers, which put
// (the method that returns them) drops above maxPooledFlat.
var flatXZDecoders = newFreeList[flatXZDecoder](2*runtime.GOMAXPROCS(0), nil)

func getFlatXZ(src *io.SectionReader, want int, maxDict uint32) decoder {
	d := flatXZDecoders.get()
	d.src, d.want, d.maxDict = src, want, maxDict
	d.dec.MaxDict = maxDict
	d.off, d.done, d.slow = 0, false, nil
	return d
}

func (d *flatXZDecoder) Read(p []byte) (int, error) {
	if d.slow != nil {
		return d.slow.Read(p)
	}
	if !d.done {
		if err := d.decode(); err != nil {
			return 0, err
		}
		if d.slow != nil {
			return d.slow.Read(p)
		}
	}
	if d.off == len(d.out) {
		return 0, io.EOF
	}
	n := copy(p, d.out[d.off:])
	d.off += n
	return n, nil
}

// decode decodes the section into d.out, or switches to the streaming
// decoder.
func (d *flatXZDecoder) decode() error {
	if cap(d.out) < d.want {
		d.out = make([]byte, 0, d.want)
	}
	out, ok, err := d.decodeOnto(d.out[:0])
	if ok && err == nil {
		d.out = out
	}
	return err
}

// decodeOnto decodes the whole section onto dst (Section.AppendData uses
// it to skip d.out and a copy). ok is false when the stream was left to
// the streaming decoder, which Read now uses.
func (d *flatXZDecoder) decodeOnto(dst []byte) (out []byte, ok bool, err error) {
	size := int(d.src.Size())
	if cap(d.in) < size {
		d.in = make([]byte, size)
	}
	d.in = d.in[:size]
	if _, err := d.src.ReadAt(d.in, 0); err != nil {
		return nil, true, err
	}
	out, err = d.dec.Decode(dst, d.in, d.want)
	if err != nil {
		d.slow, err = getXZ(d.src, d.maxDict)
		return nil, false, err
	}
	d.done = true
	return out, true, nil
}

func (d *flatXZDecoder) footprint() int64 {
	n := int64(cap(d.in)+cap(d.out)) + d.dec.Footprint()
	if d.slow != nil {
		n += d.slow.footprint()
	}
	return n
}

func (d *flatXZDecoder) finish() error {
	if d.slow != nil {
		return d.slow.finish()
	}
	return nil
}

// maxPooledFlat is the largest buffer kept with an idle decoder: at most
// 2 x GOMAXPROCS idle decoders of up to 5 MiB each (with the stored bytes).
const maxPooledFlat = maxFlatXZ

func (d *flatXZDecoder) put() {
	if d.slow != nil {
		d.slow.put()
		d.slow = nil
	}
	d.src = nil
	d.dec.Start(nil, nil, 0) // drop the caller's buffers
	if cap(d.in) > maxPooledFlat {
		d.in = nil
	}
	if cap(d.out) > maxPooledFlat {
		d.out = nil
	}
	flatXZDecoders.put(d)
}
