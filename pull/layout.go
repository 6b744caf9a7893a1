package pull

import (
	"fmt"
	"io"
	"slices"

	"github.com/gobpx/bpx"
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
	stored := make([]byte, s.StoredSize())
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

// segments lays the file out as segments: the head, the chunks, the
// digests and whatever else lies between (a signature, gaps).
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
