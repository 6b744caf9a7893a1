package pack

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/cdc"
)

// SectionChunkDigests is the type of the section that lets a copy of a
// package be updated by downloading only what changed (see package pull):
// every section before it is cut into content-defined chunks of its stored
// bytes (compressed as they are), and the section lists each chunk's
// length and SHA-256. A pull cuts the files a player already has the same
// way and copies every chunk whose digest it finds there; the cuts depend
// on the bytes, not on their offsets, so that a section whose objects
// moved still shares the chunks of the bytes that did not change. The
// Writer and the Editor add it as the package's last section (before a
// signature, which covers it) when the objects hold at least
// ChunkDigestsThreshold bytes; other readers, the reference SDK among
// them, pass over a section type they do not know.
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
//	20     4·n   number of chunks of each of them
//	20+4n  36·k  each chunk, section by section: its length (4 bytes) and SHA-256 (32)
//
// A section's chunks are cut from its first stored byte and add up to
// its stored size; an empty section has none. The chunking function's
// table is fixed by the format (see internal/cdc); packages choose the
// sizes, 16 KiB on average, larger above 16 GiB of data so that a package
// has at most about a million chunks. The section costs 36 bytes per
// chunk: 0.2% of a package.
const SectionChunkDigests = 0xF3

// ChunkDigestsThreshold is the size of the objects of a package from which
// the Writer and the Editor add SectionChunkDigests by default: a smaller
// package downloads whole in about the time of the requests a pull makes.
const ChunkDigestsThreshold = 1 << 20

const (
	chunkAlgFastCDC    = 1
	chunkHeaderSize    = 20
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
// bytes of objects.
func writeChunkDigests(bw *bpx.Writer, size uint64) error {
	return bw.WriteSummary(SectionChunkDigests, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}, newChunkSummary(cdc.ForSize(int64(size))))
}

// chunkSummary computes SectionChunkDigests (a bpx.Summarizer).
type chunkSummary struct {
	p       cdc.Params
	counts  []uint32
	records []byte
	buf     []byte
}

func newChunkSummary(p cdc.Params) *chunkSummary { return &chunkSummary{p: p} }

func (s *chunkSummary) Add(_ bpx.SectionHeader, stored io.Reader) error {
	c := cdc.NewChunker(stored, s.p, s.buf)
	var n uint32
	for {
		chunk, err := c.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sum := sha256.Sum256(chunk)
		s.records = binary.LittleEndian.AppendUint32(s.records, uint32(len(chunk)))
		s.records = append(s.records, sum[:]...)
		n++
	}
	s.counts = append(s.counts, n)
	return nil
}

func (s *chunkSummary) Data() ([]byte, error) {
	b := make([]byte, chunkHeaderSize, chunkHeaderSize+4*len(s.counts)+len(s.records))
	b[0] = chunkAlgFastCDC
	binary.LittleEndian.PutUint32(b[4:], uint32(s.p.Min))
	binary.LittleEndian.PutUint32(b[8:], uint32(s.p.Avg))
	binary.LittleEndian.PutUint32(b[12:], uint32(s.p.Max))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(s.counts)))
	for _, n := range s.counts {
		b = binary.LittleEndian.AppendUint32(b, n)
	}
	return append(b, s.records...), nil
}

// ChunkDigests is a parsed SectionChunkDigests: the chunks of the sections
// before it.
type ChunkDigests struct {
	// Min, Avg and Max are the chunking's sizes.
	Min, Avg, Max int
	// Sections holds, for each section before SectionChunkDigests, the
	// index of its first chunk in Chunks; Sections[n] is len(Chunks).
	Sections []int
	// Chunks holds every chunk in file order.
	Chunks []Chunk
}

// A Chunk is a run of a section's stored bytes.
type Chunk struct {
	Off    int64  // offset in the file
	Len    uint32 // length
	Digest [sha256.Size]byte
}

// ParseChunkDigests parses data, the decoded SectionChunkDigests of a
// container whose section table is sections, at index at. It checks the
// layout, the sizes (chunks of every section add up to its stored size,
// none longer than the maximum) and that the section covers every section
// before it; a failure is a bpx.ErrFormat error. What it allocates is
// bounded by len(data).
func ParseChunkDigests(data []byte, sections []bpx.SectionHeader, at int) (*ChunkDigests, error) {
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
	n := int64(le.Uint32(data[16:]))
	if n != int64(at) || at > len(sections) {
		return nil, bad("covers %d sections, the %d before it are", n, at)
	}
	rest := data[chunkHeaderSize:]
	if int64(len(rest)) < 4*n {
		return nil, bad("%d chunk counts in %d bytes", n, len(rest))
	}
	var total int64
	for i := range n {
		if total += int64(le.Uint32(rest[4*i:])); total > int64(len(rest))/chunkRecordSize {
			break // the check below fails
		}
	}
	if total*chunkRecordSize != int64(len(rest))-4*n {
		return nil, bad("%d chunks in %d bytes", total, int64(len(rest))-4*n)
	}
	d := &ChunkDigests{Min: p.Min, Avg: p.Avg, Max: p.Max, Sections: make([]int, 0, n+1), Chunks: make([]Chunk, 0, total)}
	recs := rest[4*n:]
	for i := range int(n) {
		h := sections[i]
		d.Sections = append(d.Sections, len(d.Chunks))
		off, end := int64(h.Pointer), int64(h.Pointer)+int64(h.StoredSize())
		for range le.Uint32(rest[4*i:]) {
			c := Chunk{Off: off, Len: le.Uint32(recs)}
			copy(c.Digest[:], recs[4:chunkRecordSize])
			recs = recs[chunkRecordSize:]
			if c.Len == 0 || int(c.Len) > p.Max || off+int64(c.Len) > end {
				return nil, bad("section %d: a chunk of %d bytes at offset %d, past its end %d or longer than %d", i, c.Len, off, end, p.Max)
			}
			off += int64(c.Len)
			d.Chunks = append(d.Chunks, c)
		}
		if off != end {
			return nil, bad("section %d: chunks of %d bytes, it stores %d", i, off-int64(h.Pointer), int64(h.StoredSize()))
		}
	}
	d.Sections = append(d.Sections, len(d.Chunks))
	return d, nil
}
