package bpx

import (
	"bytes"
	"fmt"
	"io"
)

// Partial decodes one section in steps, for a reader that needs only its
// first bytes: an object near the start of a 1 MiB section is then
// available after decoding part of the section, and a later, longer read
// continues the same decoder instead of starting again.
//
// The section's checksum covers its whole uncompressed data, so the bytes
// DecodeTo returns are verified only once the end is reached (Verified).
// A caller that hands out bytes before then must check them otherwise: a
// package checks each object against its own digest, a signed container
// is checked on the stored bytes (see package sign).
//
// A Partial is not safe for concurrent use; it may be used from one
// goroutine after another.
type Partial struct {
	sr       sectionReader
	buf      []byte
	verified bool
	err      error          // sticky
	flat     *flatXZDecoder // an xz section decoded in place, until it falls back
	started  bool           // flat has its stored bytes and has begun
	damage   *damage        // the section's known damage: fail beyond damage.at
	from     int64          // with damage: the offset of the stored bytes, not yet read
	blk      *blockDecoder  // OpenBlock's decoder, until the block is decoded
	block    *Block         // OpenBlock's block
	sec      *Section       // OpenBlock's section
}

// maxStalls is how many steps in a row may produce nothing before
// DecodeTo gives up, as bufio does with a reader that returns no bytes and
// no error.
const maxStalls = 100

// maxPartialOvershoot bounds how far DecodeTo may decode past the length
// it is asked for (a streaming decoder's read size, or an LZMA match).
const maxPartialOvershoot = 64 << 10

// OpenPartial starts decoding the section onto buf[:0]. Given a capacity of
// at least the section's decoded size, DecodeTo never moves the bytes it
// returned before; with less it grows the buffer as Data does (never
// beyond what the stored bytes really decode to).
//
// A section whose content was found damaged before (see Data) is not
// decoded again beyond the damage while its stored bytes stay the same:
// DecodeTo returns the error found then.
func (s *Section) OpenPartial(buf []byte) (*Partial, error) {
	p := &Partial{buf: buf[:0]}
	off, _, err := s.storedRange()
	if err != nil {
		return nil, err
	}
	if p.damage, err = s.knownDamage(); err != nil {
		return nil, err
	}
	if p.damage != nil {
		// Nothing is read until DecodeTo needs bytes before the damage.
		p.sr.s, p.from = s, off
		return p, nil
	}
	return p, p.init(s, off)
}

// init starts the decoder of s's stored bytes at off.
func (p *Partial) init(s *Section, off int64) error {
	if err := p.sr.initFrom(s, s.rd.r, off); err != nil {
		return err
	}
	if p.flat, _ = p.sr.dec.(*flatXZDecoder); p.flat != nil {
		// Decoding in steps reads its input as it goes and writes into
		// the caller's buffer: the whole-section buffers a pooled
		// decoder may hold would only be held, and counted, idle.
		p.flat.in, p.flat.out = nil, nil
	}
	return nil
}

// DecodeTo decodes until at least n bytes (or the whole section) are
// decoded, and returns all bytes decoded so far: it stops soon after n,
// mid-stream. Reaching the end, it checks the section's size and checksum
// as Data does. Errors are sticky; on error the bytes returned before
// stay valid but unverified.
func (p *Partial) DecodeTo(n int64) ([]byte, error) {
	if p.block != nil {
		return p.decodeBlockTo(n)
	}
	if d := p.damage; d != nil && p.err == nil && !p.verified {
		size, known := p.sr.s.DecodedSize()
		switch {
		case n > d.at || known && n >= size:
			p.err = d.err
			p.sr.release()
		case p.from >= 0:
			if p.err = p.init(p.sr.s, p.from); p.err != nil {
				return p.buf, p.err
			}
			p.from = -1
		}
	}
	for stalls := 0; p.err == nil && !p.verified && int64(len(p.buf)) < n; {
		before := len(p.buf)
		p.step(n)
		if len(p.buf) > before {
			stalls = 0
		} else if stalls++; stalls == maxStalls {
			p.err = p.sr.fail(&FormatError{Offset: int64(p.sr.s.Pointer), Section: p.sr.s.Index,
				What: fmt.Sprintf("decoder stops producing bytes after %d", len(p.buf)), Err: io.ErrNoProgress})
		}
	}
	if p.err == nil && !p.verified && int64(len(p.buf)) == p.sr.want && n >= p.sr.want {
		p.step(n) // the end: read EOF, which verifies
	}
	return p.buf, p.err
}

// step decodes the next piece toward n bytes.
func (p *Partial) step(n int64) {
	if p.flat != nil {
		p.stepFlat(n)
		return
	}
	if len(p.buf) == cap(p.buf) && p.sr.want >= 0 && int64(len(p.buf)) >= p.sr.want {
		// All there: probe for the end, which verifies, or for more,
		// which is an error (Read reads one byte beyond USize at most).
		_, err := p.sr.Read(p.sr.probe[:])
		p.ended(err)
		return
	}
	if len(p.buf) == cap(p.buf) {
		// Grow as AppendData does: by what the stored bytes can hold,
		// never to a lying USize at once.
		grow := max(int64(len(p.buf)), 64<<10)
		if p.sr.want >= 0 {
			grow = min(grow, max(p.sr.want-int64(len(p.buf)), 512))
		}
		p.buf = append(p.buf, make([]byte, grow)...)[:len(p.buf)]
	}
	ask := int64(cap(p.buf) - len(p.buf))
	if need := n - int64(len(p.buf)); need > 0 {
		ask = min(ask, max(need, maxPartialOvershoot/2))
	}
	k, err := p.sr.Read(p.buf[len(p.buf) : len(p.buf)+int(ask)])
	p.buf = p.buf[:len(p.buf)+k]
	p.ended(err)
}

// ended records what a read of the section reader returned: io.EOF (the
// section checked) or an error.
func (p *Partial) ended(err error) {
	switch {
	case err == io.EOF:
		p.verified = true
		p.sr.release()
	case err != nil:
		p.err = err
	}
}

// stepFlat decodes toward n bytes with internal/xzdec, which stops within
// an LZMA match of n and continues from there at the next call, reading
// the stored bytes only as far as it needs (an LZMA2 chunk, or 128 KiB, at
// a time). A stream
// it leaves to others, or finds damaged, goes to the streaming decoder as
// in AppendData, which decodes it again from the start.
func (p *Partial) stepFlat(n int64) {
	fd := p.flat
	if !p.started {
		// The stored bytes are read as decoding needs them: over
		// HTTP, an object near the start of a section costs the stored
		// bytes up to it, not the section's.
		fd.dec.StartReader(p.buf, fd.src, fd.want)
		p.started = true
	}
	ask := int(min(n, int64(fd.want)))
	if n >= int64(fd.want) {
		ask = fd.want // to the end of the stream, with every check
	}
	out, err := fd.dec.DecodeTo(ask)
	if err != nil {
		p.fallback()
		return
	}
	p.sr.sum(out[len(p.buf):])
	p.buf = out
	p.sr.n = int64(len(out))
	if !fd.dec.Done() {
		return
	}
	if err := p.sr.atEOF(); err != io.EOF {
		p.err = p.sr.fail(err)
		return
	}
	p.verified = true
	p.sr.release()
}

// fallback hands the section to the streaming decoder: it decodes the
// bytes already returned again (they must come out the same) and goes on
// from there.
func (p *Partial) fallback() {
	fd := p.flat
	p.flat = nil
	if _, err := fd.src.Seek(0, io.SeekStart); err != nil {
		p.err = p.sr.fail(err)
		return
	}
	slow, err := getXZ(fd.src, fd.maxDict)
	if err != nil {
		p.err = p.sr.fail(p.sr.codecError(err))
		return
	}
	fd.slow = slow
	p.sr.n, p.sr.weak, p.sr.ref, p.sr.ieee = 0, 0, 0, 0
	var scratch [4 << 10]byte
	for done := 0; done < len(p.buf); {
		k, err := p.sr.Read(scratch[:min(len(scratch), len(p.buf)-done)])
		if !bytes.Equal(scratch[:k], p.buf[done:done+k]) {
			p.err = p.sr.fail(&FormatError{Offset: int64(p.sr.s.Pointer), Section: p.sr.s.Index,
				What: fmt.Sprintf("xz stream decodes differently on a second pass, at byte %d", done)})
			return
		}
		done += k
		if err == io.EOF && done == len(p.buf) {
			p.verified = true // the whole section, checked
			return
		}
		if err != nil {
			if err == io.EOF {
				err = p.sr.tooShort()
			}
			p.err = err
			return
		}
	}
}

// Footprint returns about how many bytes p holds besides its buffer: the
// decoder's state and buffers (for an xz section decoded in place, its
// stored bytes and 32 KiB; for zlib, 80 KiB). A cache of sections decoded
// in part counts it against its budget. It is 0 once the whole section
// is decoded or p is closed.
func (p *Partial) Footprint() int64 {
	if p.block != nil {
		if p.blk == nil {
			return 0
		}
		return int64(cap(p.blk.in)) + p.blk.dec.Footprint()
	}
	if p.sr.dec == nil {
		return 0
	}
	return p.sr.dec.footprint()
}

// Verified reports whether the whole section has been decoded and its size
// and checksum checked.
func (p *Partial) Verified() bool { return p.verified }

// Close releases the decoder. The buffer stays the caller's.
func (p *Partial) Close() error {
	if p.err == nil {
		p.err = errClosed
	}
	if p.block != nil {
		p.releaseBlock()
		return nil
	}
	return p.sr.Close()
}

// decoded is how many bytes the decoder has produced, including any it
// holds beyond those returned, for tests.
func (p *Partial) decoded() int64 {
	if fd, ok := p.sr.dec.(*flatXZDecoder); ok && fd.done {
		return int64(len(fd.out))
	}
	return p.sr.n
}
