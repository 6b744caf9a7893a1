package pack

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/gobpx/bpx"
)

// useChunks makes r read its object chunk by chunk, each checked against
// its CRC-32C in SectionStreamDigests, when it can: the object has a
// digest, is stored raw, the package is not read through a signature
// (whose own chunks already check every stored byte), and the list has
// an entry of the object's digest and size.
func (r *ObjectReader) useChunks() {
	p := r.p
	if !r.hasSum || p.signers != nil || r.obj.Size <= 1<<streamMinLog {
		return
	}
	for _, sg := range r.segs {
		if p.Reader.Sections[sg.sec].Compressed() {
			return
		}
	}
	l := p.streamList()
	if sums := l.lookup(streamKey{r.sum, r.obj.Size}); sums != nil {
		r.csums, r.clog = sums, l.log
	}
}

// readChunked is ReadAt for an object read chunk by chunk (useChunks): b,
// already cut to the object's end, is filled from off; want is what the
// caller asked for. Whole chunks are read into b and checked there; the
// chunks b holds only part of are read whole, checked, and kept in the
// cache, for the next small read of a stream.
func (r *ObjectReader) readChunked(b []byte, off int64, want int) (int, error) {
	size := r.Size()
	n := 0
	for n < len(b) {
		pos := off + int64(n)
		c := pos >> r.clog
		start := c << r.clog
		clen := min(int64(1)<<r.clog, size-start)
		if pos == start && int64(len(b)-n) >= clen {
			// Every whole chunk from here: the last may be the object's
			// shorter last one.
			span := int64(len(b)-n) >> r.clog << r.clog
			if end := pos + int64(len(b)-n); end == size {
				span = size - pos
			}
			if err := r.readStored(b[n:n+int(span)], pos); err != nil {
				return n, err
			}
			for k := int64(0); k < span; k += int64(1) << r.clog {
				m := min(int64(1)<<r.clog, span-k)
				if err := r.checkChunk(c+k>>r.clog, b[n+int(k):n+int(k+m)]); err != nil {
					return n, err
				}
			}
			n += int(span)
			continue
		}
		e, err := r.chunkEntry(c, start, clen)
		if err != nil {
			return n, err
		}
		n += copy(b[n:], e.data[pos-start:])
		r.p.cache.release(e)
	}
	if n < want {
		return n, io.EOF
	}
	return n, nil
}

// chunkEntry returns the cache entry holding chunk c of the reader's
// object, clen bytes from object offset start, pinned (release it): read
// at each load and checked against its CRC-32C before any of it is handed
// out. Like objectEntry's, the entry is keyed by the bytes' place and
// their digest.
func (r *ObjectReader) chunkEntry(c, start, clen int64) (*centry, error) {
	sg := r.segAt(start)
	load := func(buf []byte) ([]byte, error) {
		if int64(cap(buf)) < clen {
			buf = make([]byte, 0, clen)
		}
		buf = buf[:clen]
		if err := r.readStored(buf, start); err != nil {
			return buf[:0], err
		}
		if err := r.checkChunk(c, buf); err != nil {
			return buf[:0], err
		}
		return buf, nil
	}
	key := cacheKey{kind: keyObject, sec: sg.sec, off: sg.off + uint64(start) - sg.start, size: uint64(clen), sum: r.chunkSum(c)}
	return r.p.cache.get(key, clen, load, false)
}

// segAt returns the segment holding object offset pos.
func (r *ObjectReader) segAt(pos int64) *segment {
	for i := range r.segs {
		if sg := &r.segs[i]; uint64(pos) < sg.start+sg.n {
			return sg
		}
	}
	return &r.segs[len(r.segs)-1]
}

// readStored fills b with the object's stored bytes from object offset
// pos, from its raw sections, in place and unchecked.
func (r *ObjectReader) readStored(b []byte, pos int64) error {
	for len(b) > 0 {
		sg := r.segAt(pos)
		rel := uint64(pos) - sg.start
		m := int(min(uint64(len(b)), sg.n-rel))
		if err := readRaw(r.p.Reader.Sections[sg.sec], b[:m], sg.off+rel); err != nil {
			return err
		}
		b, pos = b[m:], pos+int64(m)
	}
	return nil
}

// chunkSum returns the CRC-32C SectionStreamDigests gives chunk c.
func (r *ObjectReader) chunkSum(c int64) uint32 {
	return binary.LittleEndian.Uint32(r.csums[c*streamDigestSize:])
}

// checkChunk checks b, chunk c of the reader's object, against its CRC-32C.
func (r *ObjectReader) checkChunk(c int64, b []byte) error {
	if got, want := crc32.Checksum(b, castagnoli), r.chunkSum(c); got != want {
		start := c << r.clog
		return r.p.objectError(r.obj, fmt.Sprintf("bytes %d to %d: CRC-32C %#08x, its chunk digest (SectionStreamDigests) %#08x", start, start+int64(len(b)), got, want), bpx.ErrChecksum)
	}
	return nil
}

// verifySpanningChunks checks the objects that SectionStreamDigests lists
// and that span sections, which VerifySection, checking one section at a
// time, does not: each is read through its chunks (every chunk checked)
// and its CRC-32C compared with its digest. Objects of the same bytes are
// read once; all of them together are read up to 16 times the file's
// size (a hostile table can make many overlap), beyond which the first
// left is reported unchecked. It returns the first problem.
func (p *Package) verifySpanningChunks(ctx context.Context) error {
	l, sums := p.streamList(), p.digests()
	if l == nil || sums == nil || p.signers != nil {
		return nil
	}
	type place struct {
		sec       int
		off, size uint64
		sum       uint32 // two digests of the same bytes: both checked
	}
	done := map[place]bool{}
	budget := 16 * uint64(max(p.Reader.Size(), 1<<20))
	buf := make([]byte, 1<<20)
	for i := range p.objects {
		o := &p.objects[i]
		if o.Size <= 1<<streamMinLog || p.objErr[i] != nil || l.lookup(streamKey{sums[i], o.Size}) == nil {
			continue // not listed: no reader of it goes through chunks
		}
		r, err := p.OpenObject(i)
		if err != nil || r.csums == nil || len(r.segs) < 2 {
			continue // a range problem is VerifyStructure's
		}
		at := place{r.segs[0].sec, r.segs[0].off, o.Size, r.sum}
		if done[at] {
			continue
		}
		done[at] = true
		if o.Size > budget {
			return p.objectError(o, "not checked: the objects that span sections overlap more than 16 times the file's size", ErrObjectRange)
		}
		budget -= o.Size
		if err := ctx.Err(); err != nil {
			return err
		}
		h := crc32.New(castagnoli)
		if _, err := io.CopyBuffer(h, io.NewSectionReader(r, 0, int64(o.Size)), buf); err != nil {
			return err
		}
		if got := h.Sum32(); got != r.sum {
			return p.objectError(o, fmt.Sprintf("CRC-32C %#08x, digest %#08x", got, r.sum), bpx.ErrChecksum)
		}
	}
	return nil
}
