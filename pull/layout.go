package pull

import (
	"fmt"
	"io"
	"slices"

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
	if r.Header.Version != bpx.Version1 && r.Header.Version != bpx.Version2 {
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
	// The section read as any reader reads it (its checksum checked),
	// from the bytes just fetched.
	r, err = bpx.NewReader(withBytes{p.src, int64(s.Pointer), stored}, p.size)
	if err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	d, err := pack.ReadChunkDigests(r)
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

// segments lays the file out as segments: the head, the chunks, the
// digests and what follows them (known: fetched with the digests), and
// whatever else lies between (gaps).
func (p *puller) segments() error {
	type span struct {
		off, n int64
		chunk  int
		known  []byte
	}
	spans := []span{{0, int64(len(p.head)), -1, p.head}, {p.dstart, int64(len(p.dbytes)), -1, p.dbytes}}
	for i, c := range p.digests.Chunks {
		spans = append(spans, span{c.Off, int64(c.Len), i, nil})
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
	var at int64
	for _, s := range spans {
		if s.n == 0 {
			continue
		}
		if s.off < at || s.off+s.n > p.size {
			return fmt.Errorf("pull: bytes [%d, %d) overlap others or pass the end %d (sections overlap): %w", s.off, s.off+s.n, p.size, bpx.ErrFormat)
		}
		if s.off > at {
			p.segs = append(p.segs, segment{off: at, n: s.off - at, chunk: -1})
		}
		p.segs = append(p.segs, segment{off: s.off, n: s.n, chunk: s.chunk, known: s.known})
		at = s.off + s.n
	}
	if at < p.size {
		p.segs = append(p.segs, segment{off: at, n: p.size - at, chunk: -1})
	}
	p.state = make([]source, len(p.digests.Chunks))
	for i := range p.state {
		p.state[i].file = fromSrc
	}
	p.res.Chunks = len(p.digests.Chunks)
	return nil
}

// wholeSegments lays out a file without chunk digests: fetched whole.
func (p *puller) wholeSegments() {
	p.segs = nil
	at := int64(len(p.head))
	if at > 0 {
		p.segs = append(p.segs, segment{off: 0, n: at, chunk: -1, known: p.head})
	}
	if at < p.size {
		p.segs = append(p.segs, segment{off: at, n: p.size - at, chunk: -1})
	}
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
