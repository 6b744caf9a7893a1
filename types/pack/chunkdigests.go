package pack

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"sort"
	"sync/atomic"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/cdc"
)

// SectionChunkDigests is the type of the section that lets a copy of a
// package be updated by downloading only what changed (see package pull):
// the stored bytes of the sections before it (compressed as they are),
// which lie one after the other in the file, are cut into content-defined
// chunks as one stream, and the section lists each chunk's length and
// SHA-256. A pull cuts the files a player already has the same way and
// copies every chunk whose digest it finds there; the cuts depend on the
// bytes, not on their offsets, so that bytes that moved (objects after an
// insertion, stored sections whose boundaries shifted) still make the
// same chunks, a few chunks after the change. The Writer and the Editor
// add it as the package's last section (before a signature, which covers
// it) when the objects hold at least ChunkDigestsThreshold bytes; other
// readers, the reference SDK among them, pass over a section type they do
// not know.
//
// Layout, little-endian:
//
//	offset size
//	0      1     algorithm: 1 = FastCDC chunks (gear hash, normalized chunking) and SHA-256
//	1      3     reserved, 0
//	4      4     minimum chunk size
//	8      4     average chunk size (a power of two)
//	12     4     maximum chunk size
//	16     4     number of sections n: the sections before this one
//	20     4     number of chunks k
//	24     36·k  each chunk in file order: its length (4 bytes) and SHA-256 (32)
//
// The chunks start at the first byte of section 0 and add up to the
// stored sizes of sections 0 to n-1, which must follow each other in the
// file without gaps. The chunking function's table is fixed by the format
// (see internal/cdc); packages choose the sizes, 16 KiB on average, larger
// above 16 GiB of data so that a package has at most about a million
// chunks. The section costs 36 bytes per chunk: 0.2% of a package.
const SectionChunkDigests = 0xF3

// ChunkDigestsThreshold is the size of the objects of a package from which
// the Writer and the Editor add SectionChunkDigests by default: a smaller
// package downloads whole in about the time of the requests a pull makes.
const ChunkDigestsThreshold = 1 << 20

const (
	chunkAlgFastCDC    = 1
	chunkHeaderSize    = 24
	chunkRecordSize    = 4 + sha256.Size
	maxChunkSizeFormat = cdc.MaxMax
)

// WithChunkDigests says whether the package gets SectionChunkDigests. By
// default it does when its objects hold at least ChunkDigestsThreshold
// bytes, or when the package an Editor edits has them.
func WithChunkDigests(on bool) WriterOption {
	return func(cfg *writerConfig) error {
		cfg.chunkDigests = -1
		if on {
			cfg.chunkDigests = 1
		}
		return nil
	}
}

// wantChunks reports whether a package whose objects hold size bytes gets
// chunk digests.
func (c *writerConfig) wantChunks(size uint64) bool {
	return c.chunkDigests > 0 || c.chunkDigests == 0 && size >= ChunkDigestsThreshold
}

// objectBytes returns the sum of the sizes of the objects of table.
func objectBytes(table []byte) uint64 {
	var n uint64
	for i := 0; i+ObjectEntrySize <= len(table); i += ObjectEntrySize {
		n += binary.LittleEndian.Uint64(table[i:])
	}
	return n
}

// writeChunkDigests adds SectionChunkDigests to bw for a package of size
// bytes of objects. src, if not nil, is the package an Editor edits:
// where bw copies its sections, the digests of its chunks are taken from
// its own SectionChunkDigests instead of being computed again.
func writeChunkDigests(bw *bpx.Writer, size uint64, src *Package) error {
	s := newChunkSummary(cdc.ForSize(int64(size)))
	if src != nil {
		s.reuse(src)
	}
	return bw.WriteSummary(SectionChunkDigests, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}, s)
}

// chunkHashed counts the bytes chunkSummary hashed (for tests).
var chunkHashed atomic.Int64

// chunkSummary computes SectionChunkDigests (a bpx.Summarizer): the
// sections' stored bytes are one stream, cut where cdc.Params.Cut says,
// so that the result is the chunking of their concatenation.
//
// For an Editor, the sections it copies from the package it edits are
// that package's stored bytes, whose chunks its own SectionChunkDigests
// lists: once a cut of the new stream falls on one of the source's cuts
// inside a copied section, every following cut is the source's up to the
// end of that section (a cut depends only on the bytes after the one
// before it), so those chunks are taken from the list, not read and
// hashed again; a copied section costs the chunks around its ends. The
// chunks taken are checked against the bytes they name, cut and hashed,
// before the section is written (ChunkDigests.check): a list that lies
// fails the edit rather than pass into the edited package.
type chunkSummary struct {
	p       cdc.Params
	n       uint32 // sections added
	pos     int64  // stream offset of carry[0]
	carry   []byte // bytes not yet cut: less than 2·p.Max
	records []byte

	srcRA  io.ReaderAt   // the edited package's file, nil when there is nothing to reuse
	src    *ChunkDigests // its chunks
	copied [][]Chunk     // the runs of them taken, to check
}

func newChunkSummary(p cdc.Params) *chunkSummary {
	return &chunkSummary{p: p, carry: make([]byte, 0, 2*p.Max)}
}

// reuse makes s take the chunks of src's sections from src's own chunk
// digests, when they are usable and cut with s's sizes.
func (s *chunkSummary) reuse(src *Package) {
	d, err := ReadChunkDigests(src.Reader)
	if d == nil || err != nil || len(src.Reader.Sections) == 0 || d.Min != s.p.Min || d.Avg != s.p.Avg || d.Max != s.p.Max {
		return
	}
	s.srcRA, s.src = fileOf(src.Reader), d
}

// copiedFrom returns the range of the edited package's file that stored
// reads, if it reads one.
func (s *chunkSummary) copiedFrom(stored io.Reader) (off, n int64, ok bool) {
	sr, isSR := stored.(*io.SectionReader)
	if s.srcRA == nil || !isSR {
		return 0, 0, false
	}
	n = sr.Size()
	var ra io.ReaderAt = sr
	for {
		x, isSR := ra.(*io.SectionReader)
		if !isSR {
			break
		}
		inner, o, _ := x.Outer()
		ra, off = inner, off+o
	}
	a, b := reflect.TypeOf(ra), reflect.TypeOf(s.srcRA)
	if a != b || !a.Comparable() || ra != s.srcRA {
		return 0, 0, false
	}
	return off, n, true
}

func (s *chunkSummary) Add(_ bpx.SectionHeader, stored io.Reader) error {
	s.n++
	so, sn, copied := s.copiedFrom(stored)
	p0 := s.pos + int64(len(s.carry)) // the stream offset of the section's first byte
	for {
		k, err := stored.Read(s.carry[len(s.carry):cap(s.carry)])
		s.carry = s.carry[:len(s.carry)+k]
		if err != nil && err != io.EOF {
			return err
		}
		if len(s.carry) == cap(s.carry) || err == io.EOF {
			if skip := s.cut(s.p.Max, copied, p0, so, sn); skip >= 0 {
				// The source's chunks up to skip are taken: read on
				// from there.
				if _, err := stored.(io.Seeker).Seek(skip, io.SeekStart); err != nil {
					return err
				}
				s.carry, s.pos = s.carry[:0], p0+skip
				continue
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// cut emits chunks while at least keep bytes are waiting (a chunk cut
// with fewer could end elsewhere once more bytes come). In a section
// copied from the source (the bytes [so, so+sn) of its file, from stream
// offset p0), a cut that ends where a source chunk ends takes the
// source's next chunks that end within the section, and cut returns the
// section offset reading goes on from; else -1.
func (s *chunkSummary) cut(keep int, copied bool, p0, so, sn int64) int64 {
	b := s.carry
	for len(b) >= keep && len(b) > 0 {
		n := s.p.Cut(b)
		sum := sha256.Sum256(b[:n])
		chunkHashed.Add(int64(n))
		s.record(uint32(n), sum)
		b, s.pos = b[n:], s.pos+int64(n)
		if copied && s.pos > p0 && s.pos < p0+sn {
			if end := s.takeSource(so+s.pos-p0, so+sn); end > 0 {
				return end - so
			}
		}
	}
	s.carry = s.carry[:copy(s.carry, b)]
	return -1
}

// takeSource records the source's chunks that follow the one ending at
// at and end by limit, and returns the end of the last, or 0 for none.
// The source's last chunk is never taken: it ends where the source's
// stream ended, which need not be a cut where more bytes follow.
func (s *chunkSummary) takeSource(at, limit int64) int64 {
	c := s.src.Chunks
	i := sort.Search(len(c), func(i int) bool { return c[i].Off >= at })
	first, end := i, int64(0)
	for ; i < len(c)-1 && c[i].Off == at && at+int64(c[i].Len) <= limit; i++ {
		s.record(c[i].Len, c[i].Digest)
		at += int64(c[i].Len)
		end = at
	}
	if i > first {
		s.copied = append(s.copied, c[first:i])
	}
	return end
}

func (s *chunkSummary) record(n uint32, sum [sha256.Size]byte) {
	s.records = binary.LittleEndian.AppendUint32(s.records, n)
	s.records = append(s.records, sum[:]...)
}

func (s *chunkSummary) Data() ([]byte, error) {
	if len(s.copied) > 0 {
		if err := s.src.check(s.srcRA, s.copied); err != nil {
			return nil, fmt.Errorf("pack: the edited package's chunk digests do not match its bytes (an edit with Recompress or WithChunkDigests(false) does not take them): %w", err)
		}
	}
	s.cut(1, false, 0, 0, 0) // the end of the stream is the last cut
	b := make([]byte, chunkHeaderSize, chunkHeaderSize+len(s.records))
	b[0] = chunkAlgFastCDC
	binary.LittleEndian.PutUint32(b[4:], uint32(s.p.Min))
	binary.LittleEndian.PutUint32(b[8:], uint32(s.p.Avg))
	binary.LittleEndian.PutUint32(b[12:], uint32(s.p.Max))
	binary.LittleEndian.PutUint32(b[16:], s.n)
	binary.LittleEndian.PutUint32(b[20:], uint32(len(s.records)/chunkRecordSize))
	return append(b, s.records...), nil
}

// ChunkDigests is a parsed SectionChunkDigests: the chunks of the sections
// before it.
type ChunkDigests struct {
	// Min, Avg and Max are the chunking's sizes.
	Min, Avg, Max int
	// Start and End are the file offsets of the bytes the chunks cover:
	// the stored bytes of the sections before SectionChunkDigests.
	Start, End int64
	// Chunks holds every chunk in file order.
	Chunks []Chunk

	sec int // the section's index
}

// A Chunk is a run of the sections' stored bytes.
type Chunk struct {
	Off    int64  // offset in the file
	Len    uint32 // length
	Digest [sha256.Size]byte
}

// ReadChunkDigests reads and parses the SectionChunkDigests of r (the
// first, if several), or returns nil, nil when r has none. The section
// must be stored raw, as the Writer stores it, so that what it allocates
// is bounded by the section's stored size.
func ReadChunkDigests(r *bpx.Reader) (*ChunkDigests, error) {
	s := r.FindSection(SectionChunkDigests)
	if s == nil {
		return nil, nil
	}
	if s.Compressed() {
		return nil, fmt.Errorf("pack: chunk digests (section %d): stored compressed (flags %#x): %w", s.Index, s.Flags, bpx.ErrFormat)
	}
	data, err := s.Data()
	if err != nil {
		return nil, err
	}
	hdrs := make([]bpx.SectionHeader, len(r.Sections))
	for i, x := range r.Sections {
		hdrs[i] = x.SectionHeader
	}
	return ParseChunkDigests(data, hdrs, s.Index)
}

// ParseChunkDigests parses data, the decoded SectionChunkDigests of a
// container whose section table is sections, at index at. It checks the
// layout, that the section covers every section before it, that those
// follow each other without gaps, and that the chunks add up to their
// stored size, none longer than the maximum nor, but the last, shorter
// than the minimum; a failure is a bpx.ErrFormat error. What it allocates
// is bounded by len(data).
func ParseChunkDigests(data []byte, sections []bpx.SectionHeader, at int) (*ChunkDigests, error) {
	l, err := ParseChunkList(data, sections, at)
	if err != nil {
		return nil, err
	}
	d := &ChunkDigests{Min: l.Min, Avg: l.Avg, Max: l.Max, Start: l.Start, End: l.End, sec: at, Chunks: make([]Chunk, l.Len())}
	off := l.Start
	for i := range d.Chunks {
		n, sum := l.At(i)
		d.Chunks[i] = Chunk{Off: off, Len: n, Digest: sum}
		off += int64(n)
	}
	return d, nil
}

// ChunkList is a SectionChunkDigests checked as ParseChunkDigests checks
// it and read in place: each chunk's length and digest are read from the
// section's bytes when asked for (its offset is the sum of the lengths
// before it), so that it costs no memory beyond them, 36 bytes a chunk.
type ChunkList struct {
	// Min, Avg and Max are the chunking's sizes.
	Min, Avg, Max int
	// Start and End are the file offsets of the bytes the chunks cover.
	Start, End int64

	recs []byte
}

// Len returns the number of chunks.
func (l *ChunkList) Len() int { return len(l.recs) / chunkRecordSize }

// At returns the length and the SHA-256 of chunk i.
func (l *ChunkList) At(i int) (n uint32, sum [sha256.Size]byte) {
	r := l.recs[i*chunkRecordSize : (i+1)*chunkRecordSize]
	copy(sum[:], r[4:])
	return binary.LittleEndian.Uint32(r), sum
}

// Digest returns the SHA-256 of chunk i, in place.
func (l *ChunkList) Digest(i int) []byte {
	return l.recs[i*chunkRecordSize+4 : (i+1)*chunkRecordSize]
}

// ParseChunkList is ParseChunkDigests, returning the list in place: it
// keeps data, and allocates nothing else.
func ParseChunkList(data []byte, sections []bpx.SectionHeader, at int) (*ChunkList, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("pack: chunk digests (section %d): %s: %w", at, fmt.Sprintf(format, a...), bpx.ErrFormat)
	}
	if len(data) < chunkHeaderSize {
		return nil, bad("%d bytes, shorter than the header", len(data))
	}
	if data[0] != chunkAlgFastCDC || data[1]|data[2]|data[3] != 0 {
		return nil, bad("algorithm %d, reserved %x: unknown", data[0], data[1:4])
	}
	le := binary.LittleEndian
	p := cdc.Params{Min: int(le.Uint32(data[4:])), Avg: int(le.Uint32(data[8:])), Max: int(le.Uint32(data[12:]))}
	if err := p.Check(); err != nil {
		return nil, bad("%v", err)
	}
	if n := int64(le.Uint32(data[16:])); n != int64(at) || at > len(sections) {
		return nil, bad("covers %d sections, the %d before it are", n, at)
	}
	k := int64(le.Uint32(data[20:]))
	if k*chunkRecordSize != int64(len(data))-chunkHeaderSize {
		return nil, bad("%d chunks in %d bytes", k, len(data)-chunkHeaderSize)
	}
	l := &ChunkList{Min: p.Min, Avg: p.Avg, Max: p.Max, recs: data[chunkHeaderSize:]}
	if at > 0 {
		l.Start = int64(sections[0].Pointer)
	}
	l.End = l.Start
	for i, h := range sections[:at] {
		if int64(h.Pointer) != l.End {
			return nil, bad("section %d starts at %d, not where section %d ends (%d)", i, h.Pointer, i-1, l.End)
		}
		l.End += int64(h.StoredSize())
	}
	off := l.Start
	for i, recs := 0, l.recs; len(recs) > 0; i, recs = i+1, recs[chunkRecordSize:] {
		n := le.Uint32(recs)
		if n == 0 || int(n) > p.Max || off+int64(n) > l.End {
			return nil, bad("a chunk of %d bytes at offset %d, past the sections' end %d or longer than %d", n, off, l.End, p.Max)
		}
		// The chunking cuts no chunk shorter than Min but the last: a
		// list of shorter ones is no chunking's, and would cost a reader
		// more per byte than the format's bound.
		if int(n) < p.Min && len(recs) > chunkRecordSize {
			return nil, bad("chunk %d of %d bytes at offset %d: shorter than the minimum %d, and not the last", i, n, off, p.Min)
		}
		off += int64(n)
	}
	if off != l.End {
		return nil, bad("chunks of %d bytes, the sections store %d", off-l.Start, l.End-l.Start)
	}
	return l, nil
}
