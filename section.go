package bpx

import (
	"errors"
	"fmt"
	"io"
	"runtime"
)

// Section is one section of a container opened with NewReader. It embeds its
// header and reads its body lazily from the container's io.ReaderAt.
// A Section is safe for concurrent use.
type Section struct {
	SectionHeader
	// Index is the 0-based position of the section in the section table.
	Index int

	rd *Reader
	// usizeKnown is false for compressed sections of version-0 draft
	// files, whose headers carry the stored size only.
	usizeKnown bool
	st         sectionState
}

// storedRange checks that the stored bytes lie inside the file and returns
// their offset and length.
func (s *Section) storedRange() (int64, int64, error) {
	n := int64(s.StoredSize())
	if s.Pointer > uint64(s.rd.size) || uint64(s.rd.size)-s.Pointer < uint64(n) {
		return 0, 0, &FormatError{Offset: s.headerOffset(), Section: s.Index,
			What: fmt.Sprintf("section data [%d, %d) lies outside the %d-byte file", s.Pointer, s.Pointer+uint64(n), s.rd.size)}
	}
	return int64(s.Pointer), n, nil
}

// headerOffset is the file offset of this section's header.
func (s *Section) headerOffset() int64 {
	if s.rd.v0 {
		return v0MainHeaderSize + int64(s.Index)*v0SectionHeaderSize
	}
	return MainHeaderSize + int64(s.Index)*SectionHeaderSize
}

// DecodedSize returns the number of bytes Open and Data yield when the
// section reads without error, and true; or 0 and false when that is not
// known before decompressing: a compressed section of a version-0 draft
// file, whose header has no USize, or any compressed section of a Reader
// opened with IgnoreUSize. It lets a caller refuse a section that is too
// large for it before decompressing a byte.
func (s *Section) DecodedSize() (int64, bool) {
	if !s.usizeKnown || (s.rd.cfg.ignoreUSize && s.Compressed()) {
		return 0, false
	}
	return int64(s.USize), true
}

// OpenRaw returns the section's stored (possibly compressed) bytes. For a
// section whose data lies outside the file it returns a reader over the part
// that exists.
func (s *Section) OpenRaw() *io.SectionReader {
	off, n, err := s.storedRange()
	if err != nil {
		off = int64(min(s.Pointer, uint64(s.rd.size)))
		n = s.rd.size - off
	}
	return io.NewSectionReader(s.rd.r, off, n)
}

// ReadAt reads the uncompressed bytes of a raw (uncompressed) section at
// offset off, without verifying the checksum. It implements io.ReaderAt; for
// a compressed section it fails with ErrUnsupported (use Open or Data).
func (s *Section) ReadAt(p []byte, off int64) (int, error) {
	if s.Compressed() {
		return 0, fmt.Errorf("%w: section %d is compressed: random access needs Open or Data", ErrUnsupported, s.Index)
	}
	start, n, err := s.storedRange()
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, errors.New("bpx: negative offset")
	}
	if off >= n {
		return 0, io.EOF
	}
	want := len(p)
	if int64(want) > n-off {
		p = p[:n-off]
	}
	m, err := s.rd.r.ReadAt(p, start+off)
	if err == nil && m < want {
		err = io.EOF
	}
	return m, err
}

// Open returns a reader of the section's uncompressed bytes. Each call
// returns an independent reader; several may be used concurrently. The
// reader decompresses lazily and verifies at EOF: output longer than USize
// is an ErrFormat error, shorter is io.ErrUnexpectedEOF (also matching
// ErrFormat), a checksum mismatch is ErrChecksum. Errors are sticky. Close
// releases the decoder for reuse; reading the section to EOF does too.
func (s *Section) Open() (io.ReadCloser, error) {
	sr := new(sectionReader)
	if err := sr.init(s); err != nil {
		return nil, err
	}
	return sr, nil
}

// Verify reads the whole section, decompressing it, and checks its size and
// checksum, without keeping its bytes: memory stays bounded as for Open.
func (s *Section) Verify() error {
	rc, err := s.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err
}

// Data reads the whole section, decompressed and verified. The buffer grows
// with the bytes actually decoded: a header that lies about USize cannot
// make it allocate more than the stream really holds.
//
// A section whose content fails (a corrupt stream, a wrong size or
// checksum) is remembered as damaged, with the CRC-32C of the stored bytes
// the failed decode read: Data, AppendData, Open, Verify and OpenVerified
// then return the same error at once, reading those stored bytes again but
// not decoding them, until they change. An error of the io.ReaderAt
// itself is not remembered.
func (s *Section) Data() ([]byte, error) { return s.AppendData(nil) }

// AppendData appends the section's decompressed, verified bytes to dst and
// returns the extended slice. With enough capacity in dst it allocates
// nothing: decoders are pooled. On error dst's original contents are
// unchanged and the returned slice is dst.
func (s *Section) AppendData(dst []byte) ([]byte, error) {
	sr := sectionReaders.get()
	defer func() { *sr = sectionReader{}; sectionReaders.put(sr) }()
	if err := sr.init(s); err != nil {
		return dst, err
	}
	defer sr.Close()
	orig := len(dst)
	// The result must fit in a slice: on 32-bit platforms a section of
	// 2 GiB or more cannot be read whole (Open streams it).
	room := int64(maxInt - orig)
	switch {
	case sr.want > room:
		return dst, fmt.Errorf("%w: section %d: %d bytes do not fit in memory on this platform (at most %d; use Open)", ErrTooLarge, s.Index, sr.want, room)
	case sr.want < 0 && sr.limit > room:
		sr.limit = room // beyond it Read fails with ErrTooLarge
	}
	if s.usizeKnown && !s.rd.cfg.ignoreUSize {
		// Reserve USize, but never more than the stored bytes could
		// plausibly expand to before they are seen: raw sections are
		// bounded by the file, compressed ones grow as data arrives,
		// except small xz sections decoded whole (at most maxFlatXZ).
		want := int64(s.USize)
		if _, flat := sr.dec.(*flatXZDecoder); s.Compressed() && !flat && !sr.flatZstd() {
			want = min(want, int64(s.CSize)*4+64<<10)
		}
		if int64(cap(dst)-len(dst)) < want {
			dst = append(dst[:cap(dst)], make([]byte, want-int64(cap(dst)-len(dst)))...)[:len(dst)]
		}
	}
	// A small xz section decodes straight into dst.
	if fd, ok := sr.dec.(*flatXZDecoder); ok {
		out, done, err := fd.decodeOnto(dst)
		switch {
		case err != nil:
			return dst[:orig], sr.fail(sr.codecError(err))
		case done:
			return sr.finishFlat(out, orig)
		}
		// Left to the streaming decoder: read on below.
	}
	// So does a small zstd section.
	if sr.flatZstd() && int64(cap(dst)-len(dst)) >= sr.want {
		out, err := zstdDecodeAll(&sr.raw, dst, sr.want, s.rd.cfg.maxXZDict)
		if err != nil {
			return dst[:orig], sr.fail(sr.codecError(err))
		}
		return sr.finishFlat(out, orig)
	}
	// A large compressed section is checksummed on another core while the
	// rest of it decompresses.
	var pipe *sumPipe
	if sr.check != 0 && s.Compressed() && s.USize >= 2*sumPipeChunk && runtime.GOMAXPROCS(0) > 1 {
		pipe = startSumPipe(sr)
		defer func() {
			if pipe != nil {
				pipe.wait()
			}
		}()
	}
	summed := len(dst) // dst[orig:summed] has been handed to the pipe
	for {
		var n int
		var err error
		if len(dst) < cap(dst) {
			n, err = sr.Read(dst[len(dst):cap(dst)])
			dst = dst[:len(dst)+n]
		} else {
			// Full: probe for more (usually just EOF) before growing.
			n, err = sr.Read(sr.probe[:])
			dst = append(dst, sr.probe[:n]...)
		}
		if pipe != nil && (len(dst)-summed >= sumPipeChunk || err == io.EOF) {
			pipe.send(dst[summed:])
			summed = len(dst)
		}
		if err == io.EOF {
			if pipe != nil {
				pipe.wait()
				pipe = nil
				if err := sr.sumError(); err != nil {
					return dst[:orig], sr.fail(err)
				}
			}
			return dst, nil
		}
		if err != nil {
			return dst[:orig], err
		}
	}
}

// finishFlat checks the length and checksum of a section decoded whole onto
// out[orig:].
func (sr *sectionReader) finishFlat(out []byte, orig int) ([]byte, error) {
	sr.n = int64(len(out) - orig)
	if sr.want >= 0 && sr.n < sr.want {
		return out[:orig], sr.fail(sr.tooShort())
	}
	sr.sum(out[orig:])
	if err := sr.sumError(); err != nil {
		return out[:orig], sr.fail(err)
	}
	return out, nil
}

// sumPipeChunk is how much decompressed data AppendData hands to the
// checksum goroutine at a time.
const sumPipeChunk = 256 << 10

// sumPipe computes a section reader's checksum in a goroutine, over chunks
// sent in order. The goroutine is started by startSumPipe and has ended
// when wait returns: AppendData leaves nothing running.
type sumPipe struct {
	ch   chan []byte   // chunks to sum; nil asks the goroutine to end
	done chan struct{} // the goroutine has summed everything and ends
	sr   *sectionReader
	run  func() // p.sum, bound once so that starting it allocates nothing
}

// sumPipes keeps idle pipes (two small channels, no goroutine) for
// AppendData, which returns them after wait.
var sumPipes = newFreeList(2*runtime.GOMAXPROCS(0), func() *sumPipe {
	p := &sumPipe{ch: make(chan []byte, 4), done: make(chan struct{})}
	p.run = p.sum
	return p
})

func startSumPipe(sr *sectionReader) *sumPipe {
	sr.deferSum = true
	p := sumPipes.get()
	p.sr = sr
	go p.run()
	return p
}

func (p *sumPipe) sum() {
	for b := range p.ch {
		if b == nil {
			break
		}
		p.sr.sum(b)
	}
	p.done <- struct{}{}
}

func (p *sumPipe) send(b []byte) {
	if len(b) > 0 {
		p.ch <- b
	}
}

// wait waits until every chunk sent has been summed and the goroutine
// ends, and recycles the pipe; p must not be used afterwards.
func (p *sumPipe) wait() {
	p.ch <- nil
	<-p.done
	p.sr = nil
	sumPipes.put(p)
}
