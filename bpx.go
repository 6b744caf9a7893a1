/*
Package bpx reads and writes BPX containers, the open asset format used by
game engines to store moddable assets (packages, textures, models, shaders
and structured data).

A BPX file is a 40-byte main header, a table of 24-byte section headers and
the section bodies, each stored raw or compressed (zlib or xz) and optionally
checksummed (a weak byte sum or CRC32). The format is described in the BPX
specification, revision 2; this package also reads containers of version 1
and of the version-0 draft (32-byte header, 16-byte section headers,
read-only).

# Reading

NewReader (over any io.ReaderAt) and OpenReader (a file) read only the main
header and the section table. Section bodies are read lazily: Section.Data
and Section.AppendData read a section whole and return it verified (size
and checksum); Section.OpenVerified streams it and returns only verified
bytes (it checks the section whole once first); Section.Open streams it,
decompressing while you read and verifying its size and checksum at EOF,
so a reader that stops before EOF has used unverified bytes;
Section.OpenPartial decodes it in steps, verified once the end is
reached; Section.OpenRaw gives the stored bytes. A section whose content
fails a check is remembered as damaged while its stored bytes stay the
same: the next read of it returns the same error without decoding again. Sections may be read concurrently
from many goroutines, provided the io.ReaderAt allows concurrent ReadAt
calls (*os.File, *bytes.Reader and *strings.Reader do).

Sections are found by position (Reader.Sections, 0-based as in the section
table) or by type (Reader.FindSection, Reader.SectionsOfType).

Version-0 draft files differ: their checksum is a CRC-32 of the whole file,
which opening verifies by reading the file once (SkipChecksums avoids it),
and their compressed sections carry no uncompressed size (USize is 0; the
output is bounded by WithMaxSectionSize instead).

# Writing

NewWriter writes a container: CreateSection adds sections in table order,
each stored raw, zlib- or xz-compressed (with a size threshold under which it
stays raw, and a fallback to raw when compression does not help) and
checksummed (weak, the reference CRC32 variant, or IEEE CRC-32). Close lays
the file out like the reference SDK. Section bodies beyond a threshold are
spooled to temporary files, so memory stays bounded whatever the section
sizes, and finished sections are compressed in parallel. The output is
deterministic for the same input and options.

Rewrite copies a container while replacing, inserting or removing sections,
copying untouched sections byte for byte; SaveFile replaces a file
atomically (temporary file, fsync, rename), so a crash mid-save never
damages the original.

# Compatibility with the reference SDK

  - CRC32 (flag 0x04): the reference SDK computes a non-standard CRC32
    variant (see ReferenceCRC32). Readers accept a section whose checksum
    matches either that variant or the standard IEEE CRC-32. When both the
    weak (0x08) and CRC32 flags are set, the weak checksum is checked, as the
    reference does.
  - zlib (flag 0x01): read and written as RFC 1950 streams. The reference
    SDK can neither read nor write zlib sections; write xz or raw sections
    for files the reference must read.
  - For raw sections USize bytes are read and CSize is ignored, as the
    reference does. FileSize is never checked and trailing bytes after the
    last section are ignored: real files have both.
  - For compressed sections the reference accepts any decoded length. This
    package reports a length different from USize as an error unless the
    IgnoreUSize option is given.

# Errors

Malformed input yields an error matching ErrFormat (usually a *FormatError
naming the byte offset and the section), a failed checksum ErrChecksum (a
*ChecksumError), an unknown version or feature ErrUnsupported, and input
beyond a limit ErrTooLarge. Errors of the zlib and xz decoders are wrapped.

# Security

This package is meant to read untrusted files. No input makes it panic,
hang, or allocate more than the limits below or the file's own size allow:

  - Section count: at most DefaultMaxSections (WithMaxSections), and the
    table must fit in the file. A Reader keeps about 90 bytes a section
    (its 24-byte table entry and state) while it lives: 88 MB for a file
    of a million sections, whose table takes 24 MB.
  - Section size: at most DefaultMaxSectionSize bytes uncompressed
    (WithMaxSectionSize). A raw section must lie inside the file. Data
    grows its buffer as decompressed bytes arrive instead of trusting USize,
    so a lying header costs at most what the stream really decodes to.
  - xz dictionary: at most DefaultMaxXZDictionary (WithMaxXZDictionary),
    checked before the dictionary is allocated. Each concurrently open xz
    section holds one dictionary, in a window of 2 MiB (one LZMA2 chunk
    of output) plus max(dictionary, 1 MiB), and 128 KiB of input; idle
    streaming decoders are pooled and the garbage collector empties the
    pool. An xz section of at most 4 MiB
    uncompressed is instead decoded whole, which is faster
    (BenchmarkXZSection): its reader holds the stored and the decoded
    bytes, and up to 2·GOMAXPROCS idle decoders keep such buffers for
    reuse.
  - zstd window (VersionZstd files): at most DefaultMaxXZDictionary too
    (WithMaxXZDictionary), checked before it is allocated; each open zstd
    section holds one window (the Writer's: the section's size, at most
    8 MiB) and a block. A zstd section of at most 4 MiB is decoded whole,
    from its stored bytes read at once, into a buffer of its size. A zstd
    section in a file of another version is a format error: readers of
    that version would take the stream for the data.
  - Decompression stops one byte after USize: a stream cannot expand
    beyond what its header declares.
  - Section.OpenVerified keeps, for each section it checked whole, a
    SHA-256 digest of every 256 KiB of its stored bytes (1/8192 of them)
    for as long as the Reader lives, and each of its readers a 256 KiB
    buffer. A section remembered as damaged costs a few words, and each
    read of it reads the stored bytes the failed decode read again (not
    decoding them) to see whether they changed.
  - Section.Blocks reads an xz index of at most 8 MiB, and only one that
    fits in the section's stored bytes; it keeps about 64 bytes per block
    (a block takes at least 12 stored bytes) for as long as the Reader
    lives. AppendBlock holds the block's stored bytes and grows its output
    with the bytes decoded, never beyond the block's size in the index;
    up to 2·GOMAXPROCS idle block decoders keep stored-bytes buffers of up
    to 4 MiB.

The Writer's memory is bounded by WithMemoryLimit + (2·WithConcurrency+1)
· WithSpoolThreshold plus, per running compressor, about 1 MiB (zlib) or
at most 8.5 MiB (xz; 45.5 MiB at LevelMax), whatever the section sizes: the exact formula is in
the Writer's documentation. Its temporary files go to WithTempDir and are removed by
Close. CopySection reads its source at Close, so the source must stay open
until then.
*/
package bpx

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Reader gives access to the sections of a BPX container.
type Reader struct {
	// Header is the main header as stored in the file. For a version-0
	// draft file only the first 8 bytes of TypeExt are used.
	Header MainHeader
	// Sections lists the sections in table order; Sections[i].Index == i.
	Sections []*Section

	r    io.ReaderAt
	size int64
	cfg  config
	v0   bool // a version-0 draft file
}

// ReadCloser is a Reader over a file opened by OpenReader; Close closes it.
type ReadCloser struct {
	Reader
	f *os.File
}

// Close closes the underlying file. Sections must not be read afterwards.
func (rc *ReadCloser) Close() error { return rc.f.Close() }

// OpenReader opens the named BPX file and reads its header and section
// table. Its errors name the file, as os.Open's do (an *fs.PathError).
func OpenReader(name string, opts ...Option) (*ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	rc := &ReadCloser{f: f}
	if err := rc.init(f, fi.Size(), opts); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return rc, nil
}

// NewReader reads the main header and the section table of the BPX container
// in r, which is size bytes long. No section body is read. It verifies the
// signature, the version and the header checksum.
func NewReader(r io.ReaderAt, size int64, opts ...Option) (*Reader, error) {
	rd := new(Reader)
	if err := rd.init(r, size, opts); err != nil {
		return nil, err
	}
	return rd, nil
}

func (rd *Reader) init(r io.ReaderAt, size int64, opts []Option) error {
	cfg, err := newConfig(opts)
	if err != nil {
		return err
	}
	rd.r, rd.size, rd.cfg = r, size, cfg
	var hb [MainHeaderSize]byte
	if size < 24 {
		return &FormatError{Offset: 0, Section: -1, What: fmt.Sprintf("file of %d bytes is too short for a BPX header", size)}
	}
	n := int64(MainHeaderSize)
	if size < n {
		n = size
	}
	if err := readFullAt(r, hb[:n], 0); err != nil {
		return &FormatError{Offset: 0, Section: -1, What: "reading main header", Err: err}
	}
	if [3]byte(hb[0:3]) != Magic {
		return &FormatError{Offset: 0, Section: -1, What: fmt.Sprintf("bad magic %q (not a BPX file)", hb[0:3])}
	}
	version := binary.LittleEndian.Uint32(hb[20:])
	if version == 0 && !rd.cfg.anyVersion {
		return rd.initVersion0(hb[:n])
	}
	if version != Version1 && version != Version2 && version != VersionZstd && !rd.cfg.anyVersion {
		return fmt.Errorf("%w: BPX version %d (this package reads versions 0, 1 and 2, and its own %#x)", ErrUnsupported, version, VersionZstd)
	}
	if size < MainHeaderSize {
		return &FormatError{Offset: size, Section: -1, What: fmt.Sprintf("main header truncated: file is %d bytes, header needs %d", size, MainHeaderSize)}
	}
	rd.Header = UnmarshalMainHeader(hb[:])
	table, err := rd.readTable(MainHeaderSize, SectionHeaderSize)
	if err != nil {
		return err
	}
	if !rd.cfg.skipChecksums {
		if sum := HeaderChecksum(hb[:], table); sum != rd.Header.Checksum {
			return &ChecksumError{Section: -1, Expected: rd.Header.Checksum, Actual: sum}
		}
	}
	num := len(table) / SectionHeaderSize
	secs := make([]Section, num)
	rd.Sections = make([]*Section, num)
	for i := range secs {
		secs[i] = Section{
			SectionHeader: UnmarshalSectionHeader(table[i*SectionHeaderSize:]),
			Index:         i,
			rd:            rd,
			usizeKnown:    true,
		}
		rd.Sections[i] = &secs[i]
		if f := secs[i].Flags; f&FlagZstd != 0 && !rd.cfg.anyVersion {
			at := MainHeaderSize + int64(i)*SectionHeaderSize
			switch {
			case rd.Header.Version != VersionZstd:
				// Other readers of this version would take the zstd
				// stream for the section's data.
				return &FormatError{Offset: at, Section: i,
					What: fmt.Sprintf("zstd compression (flag %#x) in a version-%d file: only version %#x may use it", FlagZstd, rd.Header.Version, VersionZstd)}
			case f&(FlagXZ|FlagZlib) != 0:
				// Decoded as zstd, but as xz by its block map or by
				// another reader: one section, two contents.
				return &FormatError{Offset: at, Section: i,
					What: fmt.Sprintf("flags %#x: zstd and another compression", f)}
			}
		}
	}
	return nil
}

// readTable reads the section table of rd.Header.SectionNum entries of
// entrySize bytes starting at off, after checking it against the limits and
// the file size.
func (rd *Reader) readTable(off int64, entrySize int64) ([]byte, error) {
	num := int64(rd.Header.SectionNum)
	if avail := (rd.size - off) / entrySize; num > avail {
		return nil, &FormatError{Offset: off + avail*entrySize, Section: -1,
			What: fmt.Sprintf("section table truncated: %d sections declared, room for %d", num, avail)}
	}
	if num > int64(rd.cfg.maxSections) {
		return nil, fmt.Errorf("%w: %d sections (limit %d)", ErrTooLarge, num, rd.cfg.maxSections)
	}
	if num > int64(maxInt)/entrySize {
		return nil, fmt.Errorf("%w: a table of %d sections does not fit in memory on this platform", ErrTooLarge, num)
	}
	table := make([]byte, num*entrySize)
	if err := readFullAt(rd.r, table, off); err != nil {
		return nil, &FormatError{Offset: off, Section: -1, What: "reading section table", Err: err}
	}
	return table, nil
}

// Size returns the size of the underlying file as given to NewReader.
func (rd *Reader) Size() int64 { return rd.size }

// FindSection returns the first section of type typ in table order, or nil.
// BPX types locate their standard sections this way.
func (rd *Reader) FindSection(typ uint8) *Section {
	for _, s := range rd.Sections {
		if s.Type == typ {
			return s
		}
	}
	return nil
}

// SectionsOfType returns every section of type typ in table order.
func (rd *Reader) SectionsOfType(typ uint8) []*Section {
	var out []*Section
	for _, s := range rd.Sections {
		if s.Type == typ {
			out = append(out, s)
		}
	}
	return out
}

// readFullAt fills p from r at off. Unlike a bare ReadAt it accepts io.EOF
// together with a full read and reports a short read as
// io.ErrUnexpectedEOF.
func readFullAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
