package bpx

import (
	"crypto/sha256"
	"fmt"
	"io"
)

// storedChunk is the unit in which OpenVerified checks stored bytes: a
// SHA-256 digest (32 bytes) is kept for every storedChunk bytes of a
// section read whole once, 1/8192 of its stored size.
const storedChunk = 256 << 10

// OpenVerified returns a reader of the section's uncompressed bytes that,
// unlike Open's, returns only bytes already verified. Open's reader hands
// out bytes as it decodes them and reports a wrong checksum at the end,
// which a reader that stops early (an image decoder at its end marker, a
// reader of one object in a large section) never sees.
//
// The first call for a section decodes it whole, checking its size and
// checksum as Data does, and keeps a SHA-256 digest of every 256 KiB of
// its stored bytes (1/8192 of them, for as long as the Reader lives); the
// readers it returns decode from stored bytes that are read and checked
// against those digests before the decoder sees them, so they yield
// exactly the bytes verified, or an error matching ErrChecksum if the
// stored bytes changed since. The price is decoding the section once more
// at the first call: for a section small enough, Data is cheaper. A Reader
// opened with SkipChecksums, whose caller checks the stored bytes itself
// (as package sign does), returns what Open returns.
func (s *Section) OpenVerified() (io.ReadCloser, error) {
	if s.rd.cfg.skipChecksums {
		return s.Open()
	}
	sums, err := s.verifiedSums()
	if err != nil {
		return nil, err
	}
	off, n, err := s.storedRange()
	if err != nil {
		return nil, err
	}
	v := &verifiedReader{chunks: storedChunks{s: s, r: s.rd.r, base: off, size: n, sums: sums, cur: -1}}
	if err := v.sr.initFrom(s, &v.chunks, 0); err != nil {
		return nil, err
	}
	v.sr.quiet = true // the first pass remembered any damage
	return v, nil
}

// verifiedSums returns the digests of the section's stored chunks, reading
// the section whole first if no reader has yet.
func (s *Section) verifiedSums() ([][sha256.Size]byte, error) {
	if sums := s.st.sums.Load(); sums != nil {
		return *sums, nil
	}
	s.st.verifyMu.Lock()
	defer s.st.verifyMu.Unlock()
	if sums := s.st.sums.Load(); sums != nil {
		return *sums, nil
	}
	off, n, err := s.storedRange()
	if err != nil {
		return nil, err
	}
	if d, err := s.knownDamage(); d != nil || err != nil {
		if d != nil {
			return nil, d.err
		}
		return nil, err
	}
	c := storedChunks{s: s, r: s.rd.r, base: off, size: n, cur: -1, record: true}
	c.sums = make([][sha256.Size]byte, 0, (n+storedChunk-1)/storedChunk)
	sr := sectionReaders.get()
	defer func() { *sr = sectionReader{}; sectionReaders.put(sr) }()
	if err := sr.initFrom(s, &c, 0); err != nil {
		return nil, err
	}
	defer sr.Close()
	buf := make([]byte, 64<<10)
	for {
		_, err := sr.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	// Stored bytes after the stream that no decoder read are not
	// verified: a reader that asks for them fails.
	s.st.sums.Store(&c.sums)
	return c.sums, nil
}

// verifiedReader is OpenVerified's reader.
type verifiedReader struct {
	sr     sectionReader
	chunks storedChunks
}

func (v *verifiedReader) Read(p []byte) (int, error) { return v.sr.Read(p) }

func (v *verifiedReader) Close() error {
	v.chunks.buf = nil
	return v.sr.Close()
}

// storedChunks reads a section's stored bytes (size bytes at base in r)
// in whole chunks of storedChunk bytes, each hashed with SHA-256 as it is
// read: recording the digests, on the pass that verifies the section, or
// comparing them with those recorded, on later passes.
type storedChunks struct {
	s          *Section
	r          io.ReaderAt
	base, size int64
	sums       [][sha256.Size]byte
	record     bool
	buf        []byte // chunk cur
	cur        int64
}

// ReadAt reads the stored bytes at off (from the section's start).
func (c *storedChunks) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("bpx: section %d: negative offset", c.s.Index)
	}
	n := 0
	for n < len(p) && off+int64(n) < c.size {
		pos := off + int64(n)
		k := pos / storedChunk
		chunk, err := c.chunk(k)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], chunk[pos-k*storedChunk:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// chunk returns chunk k, checked.
func (c *storedChunks) chunk(k int64) ([]byte, error) {
	if k == c.cur {
		return c.buf, nil
	}
	for c.record && int64(len(c.sums)) < k { // a decoder that skips: record what it skipped
		if _, err := c.load(int64(len(c.sums))); err != nil {
			return nil, err
		}
	}
	return c.load(k)
}

func (c *storedChunks) load(k int64) ([]byte, error) {
	lo := k * storedChunk
	hi := min(lo+storedChunk, c.size)
	if cap(c.buf) < int(hi-lo) {
		c.buf = make([]byte, min(c.size, storedChunk))
	}
	c.cur = -1
	buf := c.buf[:hi-lo]
	if err := readFullAt(c.r, buf, c.base+lo); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf)
	switch {
	case k < int64(len(c.sums)):
		if sum != c.sums[k] {
			c.s.st.sums.Store(nil) // the next OpenVerified verifies again
			return nil, &FormatError{Offset: c.base + lo, Section: c.s.Index, Err: ErrChecksum,
				What: fmt.Sprintf("stored bytes [%d, %d) of the section changed since it was verified", lo, hi)}
		}
	case c.record:
		c.sums = append(c.sums, sum)
	default:
		return nil, &FormatError{Offset: c.base + lo, Section: c.s.Index, Err: ErrChecksum,
			What: fmt.Sprintf("stored bytes [%d, %d) of the section were not verified (beyond the stream)", lo, hi)}
	}
	c.buf, c.cur = buf, k
	return buf, nil
}
