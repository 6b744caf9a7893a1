package pull

import (
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// readLayout reads the header, the table and the chunk digests of src.
func (p *puller) readLayout() error {
	r, err := bpx.NewReader(p.src, p.size)
	if err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	if r.Header.Version != bpx.Version1 && r.Header.Version != bpx.Version2 && r.Header.Version != bpx.VersionZstd {
		p.head = nil // a draft file: downloaded whole
		return nil
	}
	hn := bpx.MainHeaderSize + int64(len(r.Sections))*bpx.SectionHeaderSize
	if err := checkExtent(r, hn, p.size); err != nil {
		return err
	}
	p.head = make([]byte, hn)
	if _, err := p.src.ReadAt(p.head, 0); err != nil {
		return fmt.Errorf("pull: reading the header: %w", err)
	}
	p.res.Fetched, p.res.Requests = hn, 1
	p.secs = make([]bpx.SectionHeader, len(r.Sections))
	for i, s := range r.Sections {
		p.secs[i] = s.SectionHeader
	}
	s := r.FindSection(pack.SectionChunkDigests)
	if s == nil || r.Header.Type != bpx.TypePackage {
		return nil
	}
	if s.StoredSize() > MaxDigestsSize {
		return fmt.Errorf("pull: chunk digests of %d bytes: more than %d: %w", s.StoredSize(), MaxDigestsSize, bpx.ErrTooLarge)
	}
	// The digests cover the stored bytes before them; what follows them
	// (a signature) is fetched in the same request, so that it is of the
	// same file as they are, and checked with them.
	tail := p.size - int64(s.Pointer) - int64(s.StoredSize())
	if tail > maxTail {
		return fmt.Errorf("pull: %d bytes after the chunk digests, which cover none of them: more than a signature section holds (%d): %w", tail, maxTail, bpx.ErrFormat)
	}
	stored := make([]byte, p.size-int64(s.Pointer))
	if _, err := p.fetchAt(stored, int64(s.Pointer)); err != nil {
		return fmt.Errorf("pull: reading the chunk digests: %w", err)
	}
	p.res.Fetched += int64(len(stored))
	p.res.Requests++
	// The section checked as any reader checks it (its checksum), from
	// the bytes just fetched, and parsed in place: it is stored raw.
	if s.Compressed() || s.CSize != s.USize {
		return fmt.Errorf("pull: chunk digests (section %d) stored compressed: %w", s.Index, bpx.ErrFormat)
	}
	r, err = bpx.NewReader(withBytes{p.src, int64(s.Pointer), stored}, p.size)
	if err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	if err := r.Sections[s.Index].Verify(); err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	d, err := pack.ParseChunkList(stored[:s.StoredSize()], p.secs, s.Index)
	if err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	if d.Max > MaxChunk {
		return fmt.Errorf("pull: chunks of up to %d bytes: more than %d: %w", d.Max, MaxChunk, bpx.ErrTooLarge)
	}
	p.digests, p.dstart, p.dbytes = d, int64(s.Pointer), stored
	return p.segments()
}

// maxTail is the most bytes a pull takes after the chunk digests, which
// it fetches with them: a signature section.
const maxTail = sign.MaxSectionSize

// checkExtent checks the size src states for the file of r (whose header
// and section table take hn bytes) against what the file says of itself:
// its header's file size, and where its sections end. A server's size is
// never believed beyond them: nothing is fetched or written past the end
// of the file's last section.
func checkExtent(r *bpx.Reader, hn, size int64) error {
	end := hn
	for _, s := range r.Sections {
		end = max(end, int64(s.Pointer)+int64(s.StoredSize()))
	}
	if end != size || r.Header.FileSize != 0 && r.Header.FileSize != uint64(size) {
		return fmt.Errorf("pull: the file is %d bytes as served; its header says %d and its sections end at %d: %w", size, r.Header.FileSize, end, bpx.ErrFormat)
	}
	return nil
}

// segments lays the file out as segments: the head, the chunks, in
// order from the digests' Start to their End, the digests and what
// follows them (known: fetched with the digests), and whatever lies
// between (gaps). Built in one pass, a segment a chunk, no more.
func (p *puller) segments() error {
	d := p.digests
	if d.Start < int64(len(p.head)) || d.End > p.dstart {
		return fmt.Errorf("pull: chunks of bytes [%d, %d) overlap the head (%d bytes) or the chunk digests (at %d): %w", d.Start, d.End, len(p.head), p.dstart, bpx.ErrFormat)
	}
	n := d.Len()
	p.segs = make([]segment, 0, n+5)
	p.segs = append(p.segs, knownSeg(0, uint32(len(p.head)), p.addKnown(p.head)))
	p.gap(int64(len(p.head)), d.Start)
	p.c0 = len(p.segs)
	off := d.Start
	for i := range n {
		l, _ := d.At(i)
		p.segs = append(p.segs, chunkSeg(off, l, i))
		off += int64(l)
		p.largest = max(p.largest, int(l))
	}
	p.gap(d.End, p.dstart)
	if len(p.dbytes) > 0 { // at most MaxDigestsSize and a signature section
		p.segs = append(p.segs, knownSeg(p.dstart, uint32(len(p.dbytes)), p.addKnown(p.dbytes)))
	}
	p.state = make([]source, n)
	for i := range p.state {
		p.state[i].file = fromSrc
	}
	p.res.Chunks = n
	return nil
}

// gap adds the segments of the bytes [from, to) that no chunk covers, if
// any: one for each GiB.
func (p *puller) gap(from, to int64) {
	for ; from < to; from += 1 << 30 {
		p.segs = append(p.segs, gapSeg(from, uint32(min(to-from, 1<<30))))
	}
}

// addKnown keeps b, bytes of the new file fetched already, and returns
// its number for a segment's known.
func (p *puller) addKnown(b []byte) int32 {
	p.known = append(p.known, b)
	return int32(len(p.known) - 1)
}

// wholeSegments lays out a file without chunk digests: fetched whole.
func (p *puller) wholeSegments() {
	p.segs = nil
	at := int64(len(p.head))
	if at > 0 {
		p.segs = append(p.segs, knownSeg(0, uint32(at), p.addKnown(p.head)))
	}
	p.gap(at, p.size)
}

// withBytes is r with the bytes at off replaced by b (which a read must
// not straddle).
type withBytes struct {
	r   io.ReaderAt
	off int64
	b   []byte
}

func (w withBytes) ReadAt(p []byte, off int64) (int, error) {
	if off >= w.off && off+int64(len(p)) <= w.off+int64(len(w.b)) {
		return copy(p, w.b[off-w.off:]), nil
	}
	return w.r.ReadAt(p, off)
}
