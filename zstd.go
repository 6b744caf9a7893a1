package bpx

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdBlocks is what a zstd decoder holds besides its window: a block of
// input and one of output (128 KiB each at most).
const zstdBlocks = 256 << 10

// zstdWindowMax is the largest window the Writer gives a zstd section.
const zstdWindowMax = 8 << 20

// zstdDecoder reads a zstd stream synchronously (no goroutine), with a
// window of at most the Reader's xz dictionary limit.
type zstdDecoder struct {
	zr     *zstd.Decoder
	pool   *sync.Pool
	window int64 // the largest window it accepts (zstdWindowOf)
}

// zstdPools keeps idle zstd decoders, one sync.Pool per window (a power
// of two), which is fixed when a decoder is created; as for xz, the
// garbage collector empties them.
var zstdPools sync.Map // int64 -> *sync.Pool

func getZstd(src *io.SectionReader, window int64) (decoder, error) {
	pool := poolOf(&zstdPools, window)
	d, _ := pool.Get().(*zstdDecoder)
	if d == nil {
		zr, err := zstd.NewReader(src,
			zstd.WithDecoderConcurrency(1), // synchronous: no goroutine to leak
			zstd.WithDecoderMaxWindow(uint64(window)),
			zstd.WithDecoderMaxMemory(uint64(window)),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
		return &zstdDecoder{zr: zr, pool: pool, window: window}, nil
	}
	if err := d.zr.Reset(src); err != nil {
		d.put()
		return nil, err
	}
	return d, nil
}

// zstdWindowOf returns the window a decoder of the zstd stream src gets:
// the power of two that holds the window its first frame declares (its
// content size, for a frame of one segment), within limit; limit itself
// when that cannot be read (a damaged header, or a skippable frame
// first). The decoder refuses any later frame of a larger window, so
// that it never holds more than it is counted as holding (footprint),
// and decoders pooled by window keep buffers of that size at most. The
// header is read from the stored bytes' first read, which the decoder's
// first read then takes from the same buffer.
func zstdWindowOf(src *io.SectionReader, limit uint32) int64 {
	lim := int64(max(limit, zstd.MinWindowSize))
	var hb [zstd.HeaderMaxSize]byte
	n, _ := src.ReadAt(hb[:], 0)
	var h zstd.Header
	if n == 0 || h.Decode(hb[:n]) != nil || h.Skippable {
		return lim
	}
	w := int64(h.WindowSize)
	if h.SingleSegment {
		w = int64(h.FrameContentSize)
	}
	if w < 0 || w > lim {
		return lim // refused by the decoder, as too large
	}
	p := int64(zstd.MinWindowSize)
	for p < w {
		p <<= 1
	}
	return min(p, lim)
}

func (d *zstdDecoder) Read(p []byte) (int, error) { return d.zr.Read(p) }

func (d *zstdDecoder) finish() error { return nil } // bytes after the frames fail as a bad frame

func (d *zstdDecoder) footprint() int64 { return d.window + zstdBlocks }

func (d *zstdDecoder) put() {
	d.zr.Reset(eofReader{}) // drop the reference to the section
	d.pool.Put(d)
}

// isZstdWindow reports whether err is a zstd frame's window above the
// limit.
func isZstdWindow(err error) bool {
	return errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded)
}

// zstdLevel returns the encoder level of l: compressing once for many
// players, the default works harder than zstd's own default.
func (l Level) zstdLevel() zstd.EncoderLevel {
	switch l {
	case LevelFast:
		return zstd.SpeedDefault
	case LevelMax:
		return zstd.SpeedBestCompression
	}
	return zstd.SpeedBetterCompression
}

// zstdWindow returns the window of a zstd section of usize bytes: the
// smallest power of two holding the section, at least zstd's minimum and
// at most zstdWindowMax.
func zstdWindow(usize int64) int {
	w := zstd.MinWindowSize
	for w < zstdWindowMax && int64(w) < usize {
		w <<= 1
	}
	return w
}

// zstdEncoders keeps idle encoders, one sync.Pool per level and window
// (fixed when an encoder is made); the garbage collector empties them.
var zstdEncoders sync.Map // zstdKey -> *sync.Pool

type zstdKey struct {
	level  Level
	window int
}

// zstdCompress writes a zstd frame of the section's bytes in to w, with
// no checksum of its own (the section's covers them), synchronously.
func zstdCompress(in io.WriterTo, w io.Writer, usize int64, l Level) error {
	key := zstdKey{l, zstdWindow(usize)}
	pool := poolOf(&zstdEncoders, key)
	enc, _ := pool.Get().(*zstd.Encoder)
	if enc == nil {
		var err error
		enc, err = zstd.NewWriter(w,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(l.zstdLevel()),
			zstd.WithWindowSize(key.window),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return err
		}
	} else {
		enc.Reset(w)
	}
	if _, err := in.WriteTo(enc); err != nil {
		return err // enc, still holding w, is left to the collector
	}
	if err := enc.Close(); err != nil {
		return err
	}
	enc.Reset(nil)
	pool.Put(enc)
	return nil
}

// flatZstd reports whether sr's section is a zstd section that AppendData
// decodes whole, as a small xz section is: at most maxFlatXZ bytes
// decoded from at most flatXZStoredLimit stored ones, of a window of at
// most that, so that reserving its size and reading its stored bytes at
// once stays bounded, and the whole-section decoder (whose window limit
// is maxFlatXZ) accepts what the streaming one would.
func (sr *sectionReader) flatZstd() bool {
	return sr.s.Flags&FlagZstd != 0 && sr.want > 0 && sr.want <= maxFlatXZ && sr.raw.Size() <= flatXZStoredLimit(sr.want) && sr.zwin <= maxFlatXZ
}

// zstdFlat is a decoder of whole zstd sections and its input buffer.
type zstdFlat struct {
	dec *zstd.Decoder
	in  []byte
}

// zstdFlats keeps idle whole-section decoders, one free list per window
// limit.
var zstdFlats sync.Map // uint32 -> *sync.Pool

// zstdDecodeAll appends to dst the want bytes that the zstd stream src
// decodes to (more is an error), with a window of at most windowMax.
func zstdDecodeAll(src *io.SectionReader, dst []byte, want int64, windowMax uint32) ([]byte, error) {
	pool := poolOf(&zstdFlats, windowMax)
	f, _ := pool.Get().(*zstdFlat)
	if f == nil {
		dec, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(uint64(max(windowMax, zstd.MinWindowSize))),
			zstd.WithDecoderMaxMemory(maxFlatXZ+1))
		if err != nil {
			return dst, err
		}
		f = &zstdFlat{dec: dec}
	}
	defer pool.Put(f)
	n := int(src.Size())
	if cap(f.in) < n {
		f.in = make([]byte, n)
	}
	f.in = f.in[:n]
	if _, err := src.ReadAt(f.in, 0); err != nil {
		return dst, err
	}
	orig := len(dst)
	out, err := f.dec.DecodeAll(f.in, dst)
	if err != nil {
		return dst, err
	}
	if int64(len(out)-orig) > want {
		return dst, fmt.Errorf("the stream decodes to more than the section's %d bytes", want)
	}
	return out, nil
}

// poolOf returns the sync.Pool of key in m, made on first use: pools of
// decoders or encoders whose settings, fixed when one is made, are key.
func poolOf(m *sync.Map, key any) *sync.Pool {
	p, ok := m.Load(key)
	if !ok {
		p, _ = m.LoadOrStore(key, new(sync.Pool))
	}
	return p.(*sync.Pool)
}
