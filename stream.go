package bpx

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
)

// sectionReaders keeps idle section readers for AppendData, which
// returns them; each is under 1 KiB (its decoder is pooled apart).
var sectionReaders = newFreeList[sectionReader](4*runtime.GOMAXPROCS(0), nil)

// sectionReader streams one section's uncompressed bytes, counting them and
// computing the checksum, and reports size and checksum errors at EOF.
type sectionReader struct {
	s     *Section
	src   io.Reader // raw section reader or decoder output
	dec   decoder   // pooled decoder, nil for raw sections
	zwin  int64     // a zstd section's window (zstdWindowOf)
	raw   io.SectionReader
	limit int64 // largest acceptable output length
	want  int64 // exact expected length, or -1 if unknown
	n     int64 // bytes produced so far
	check uint8 // FlagWeak, FlagCRC32, checkIEEE, checkRef, checkIEEEFirst or 0
	weak  uint32
	ref   uint32 // reference CRC32 variant
	ieee  uint32 // standard CRC-32
	err   error  // sticky
	// deferSum leaves the checksum to the caller (AppendData's pipeline).
	deferSum bool
	// quiet: a failure is no damage to remember (matches's second
	// pass fails whenever the checksum is the reference's).
	quiet bool
	// trap sees every read of the stored bytes, so that a failure
	// caused by the source (a network error, a changed chunk) is not
	// remembered as damage of the section.
	trap readTrap
	// chunks reads a compressed section's stored bytes in large reads.
	chunks chunkedReads
	probe  [512]byte
}

// init prepares sr to decode section s from the container's file, unless
// the section is known to be damaged (see damage): then it returns the
// error found before.
func (sr *sectionReader) init(s *Section) error {
	off, _, err := s.storedRange()
	if err != nil {
		return err
	}
	if d, err := s.knownDamage(); d != nil || err != nil {
		if d != nil {
			return d.err
		}
		return err
	}
	return sr.initFrom(s, s.rd.r, off)
}

// initFrom prepares sr to decode section s from its stored bytes at
// offset base of src.
func (sr *sectionReader) initFrom(s *Section, src io.ReaderAt, base int64) error {
	cfg := &s.rd.cfg
	*sr = sectionReader{s: s, want: -1}
	_, n, err := s.storedRange()
	if err != nil {
		return err
	}
	if s.usizeKnown && int64(s.USize) > cfg.maxSectionSize {
		return fmt.Errorf("%w: section %d: %d bytes uncompressed (limit %d)", ErrTooLarge, s.Index, s.USize, cfg.maxSectionSize)
	}
	sr.trap = readTrap{r: src, base: base, reads: &s.st.decodes}
	sr.raw = *io.NewSectionReader(&sr.trap, base, n)
	if s.Compressed() {
		sr.chunks = chunkedReads{src: &sr.trap, end: base + n}
		sr.raw = *io.NewSectionReader(&sr.chunks, base, n)
	}
	switch {
	case !s.usizeKnown || (cfg.ignoreUSize && s.Compressed()):
		sr.limit = cfg.maxSectionSize
	default:
		sr.want = int64(s.USize)
		sr.limit = sr.want
	}
	if !cfg.skipChecksums {
		switch {
		case s.Flags&FlagWeak != 0:
			sr.check = FlagWeak
		case s.Flags&FlagCRC32 != 0 && s.rd.Header.Version == VersionZstd:
			// VersionZstd is this module's: its writer stores the
			// standard CRC-32, checked first (the reference's
			// variant is accepted too).
			sr.check = checkIEEEFirst
		case s.Flags&FlagCRC32 != 0:
			sr.check = FlagCRC32
		}
	}
	switch {
	case s.Flags&FlagZstd != 0:
		sr.zwin = zstdWindowOf(&sr.raw, cfg.maxXZDict)
		sr.dec, err = getZstd(&sr.raw, sr.zwin)
	case s.Flags&FlagXZ != 0 && sr.want > 0 && sr.want <= maxFlatXZ && n <= flatXZStoredLimit(sr.want):
		sr.dec = getFlatXZ(&sr.raw, int(sr.want), cfg.maxXZDict)
	case s.Flags&FlagXZ != 0:
		sr.dec = getXZStream(&sr.raw, cfg.maxXZDict)
	case s.Flags&FlagZlib != 0:
		sr.dec, err = getZlib(&sr.raw)
	default:
		sr.src = &sr.raw
		return nil
	}
	if err != nil {
		return sr.codecError(err)
	}
	sr.src = sr.dec
	return nil
}

// codecError turns a decoder error into a positioned error. An error of
// the source itself (a network error, a chunk that fails its signature)
// is returned as the source gave it: it is no fault of the stream, nor a
// format error.
func (sr *sectionReader) codecError(err error) error {
	if sr.trap.failed && sr.trap.err != io.EOF && sr.trap.err != io.ErrUnexpectedEOF {
		return sr.trap.err
	}
	what := "zlib stream"
	switch {
	case sr.s.Flags&FlagZstd != 0:
		what = "zstd stream"
	case sr.s.Flags&FlagXZ != 0:
		what = "xz stream"
	}
	if isZstdWindow(err) {
		return fmt.Errorf("%w: section %d: %s declares a window above %d bytes: %w", ErrTooLarge, sr.s.Index, what, sr.s.rd.cfg.maxXZDict, err)
	}
	if isMemlimit(err) {
		return fmt.Errorf("%w: section %d: %s declares a dictionary above %d bytes: %w", ErrTooLarge, sr.s.Index, what, sr.s.rd.cfg.maxXZDict, err)
	}
	off, _ := sr.raw.Seek(0, io.SeekCurrent)
	return &FormatError{Offset: int64(sr.s.Pointer) + off, Section: sr.s.Index, What: "corrupt " + what, Err: err}
}

func (sr *sectionReader) Read(p []byte) (int, error) {
	if sr.err != nil {
		return 0, sr.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Ask for at most one byte beyond the limit: enough to detect a stream
	// longer than declared without letting it run on.
	if room := sr.limit - sr.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := sr.src.Read(p)
	if n > 0 {
		if !sr.deferSum {
			sr.sum(p[:n])
		}
		sr.n += int64(n)
		if sr.n > sr.limit {
			n -= int(sr.n - sr.limit)
			sr.n = sr.limit
			return n, sr.fail(sr.tooLong())
		}
	}
	switch {
	case err == io.EOF:
		if sr.dec != nil {
			if e := sr.dec.finish(); e != nil {
				return n, sr.fail(sr.codecError(e))
			}
		}
		return n, sr.fail(sr.atEOF())
	case err != nil:
		if sr.dec != nil {
			err = sr.codecError(err)
		} else if err == io.ErrUnexpectedEOF {
			err = sr.tooShort()
		}
		return n, sr.fail(err)
	}
	return n, nil
}

func (sr *sectionReader) sum(p []byte) {
	switch sr.check {
	case FlagWeak:
		sr.weak = WeakChecksum(sr.weak, p)
	case FlagCRC32, checkRef:
		sr.ref = UpdateReferenceCRC32(sr.ref, p)
	case checkIEEE, checkIEEEFirst:
		sr.ieee = crc32.Update(sr.ieee, crc32.IEEETable, p)
	}
}

func (sr *sectionReader) tooLong() error {
	if sr.want < 0 {
		return fmt.Errorf("%w: section %d decodes to more than %d bytes", ErrTooLarge, sr.s.Index, sr.limit)
	}
	return &FormatError{Offset: sr.s.headerOffset() + 12, Section: sr.s.Index,
		What: fmt.Sprintf("section data is longer than its USize %d", sr.want)}
}

func (sr *sectionReader) tooShort() error {
	return &FormatError{Offset: sr.s.headerOffset() + 12, Section: sr.s.Index,
		What: fmt.Sprintf("section data ends after %d of its USize %d bytes", sr.n, sr.want), Err: io.ErrUnexpectedEOF}
}

// atEOF checks length and checksum once the source is exhausted. With
// deferSum the caller computes and checks the checksum itself (sumError).
func (sr *sectionReader) atEOF() error {
	if sr.want >= 0 && sr.n < sr.want {
		return sr.tooShort()
	}
	if sr.deferSum {
		return io.EOF
	}
	if err := sr.sumError(); err != nil {
		return err
	}
	return io.EOF
}

// sumError compares the computed checksum with the stored one.
func (sr *sectionReader) sumError() error {
	stored := sr.s.Checksum
	switch sr.check {
	case FlagWeak:
		if sr.weak != stored {
			return &ChecksumError{Section: sr.s.Index, Expected: stored, Actual: sr.weak}
		}
	case FlagCRC32:
		if sr.ref != stored && !sr.s.matches(checkIEEE) {
			return &ChecksumError{Section: sr.s.Index, Expected: stored, Actual: sr.ref}
		}
	case checkIEEE:
		if sr.ieee != stored {
			return &ChecksumError{Section: sr.s.Index, Expected: stored, Actual: sr.ieee}
		}
	case checkIEEEFirst:
		if sr.ieee != stored && !sr.s.matches(checkRef) {
			return &ChecksumError{Section: sr.s.Index, Expected: stored, Actual: sr.ieee}
		}
	case checkRef:
		if sr.ref != stored {
			return &ChecksumError{Section: sr.s.Index, Expected: stored, Actual: sr.ref}
		}
	}
	return nil
}

// maxInt is the largest int, 2^31 - 1 on 32-bit platforms: the bound of
// any slice, so of any section read whole.
const maxInt = int(^uint(0) >> 1)

// Internal check modes of FlagCRC32 sections: one variant only (to try
// the other after the first failed), and the standard CRC-32 first.
const (
	checkIEEE      = 0x80
	checkRef       = 0x81
	checkIEEEFirst = 0x82
)

// matches reports whether s's data matches its stored CRC32 computed as
// check (checkIEEE or checkRef) says: decoded once more.
func (s *Section) matches(check uint8) bool {
	sr := new(sectionReader)
	if sr.init(s) != nil {
		return false
	}
	defer sr.Close()
	sr.quiet = true
	sr.check = check
	_, err := io.Copy(io.Discard, sr)
	return err == nil
}

// fail records err as the sticky error and releases the decoder. An error
// of the section's content is remembered (see damage).
func (sr *sectionReader) fail(err error) error {
	sr.err = err
	sr.release()
	if !sr.quiet && !sr.trap.failed {
		// end is 0 when nothing was read: then no stored byte failed.
		sr.s.noteDamage(err, max(0, sr.trap.end-sr.trap.base), sr.n)
	}
	return err
}

func (sr *sectionReader) release() {
	if sr.dec != nil {
		sr.dec.put()
		sr.dec = nil
		sr.src = nil
	}
	sr.chunks.release()
}

// Close releases the decoder. Reading after Close fails.
func (sr *sectionReader) Close() error {
	if sr.err == nil {
		sr.err = errClosed
	}
	sr.release()
	return nil
}

var errClosed = errors.New("bpx: read of closed section reader")
