package pull

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/types/pack"
)

// Source is the newer package: a *remote.File, or any io.ReaderAt with
// its size (io.NewSectionReader of a local file, say). When it has a
// FetchAt method as remote.File does, Pull fetches with it, so that each
// merged range is one request of exactly its bytes.
type Source interface {
	io.ReaderAt
	Size() int64
}

// Result tells what a pull did. Bytes are bytes of the new file.
type Result struct {
	Size     int64 // the new file's size
	UpToDate bool  // the local file already was the new file: nothing was written
	Whole    bool  // the package has no chunk digests: it was downloaded whole
	Chunks   int   // chunks of the new package
	Copied   int64 // bytes copied from local files (the local file and seeds)
	Resumed  int64 // bytes kept from an interrupted pull's LOCAL.part
	Fetched  int64 // bytes fetched, the header, table and digests included (PullURL: every byte received)
	Requests int   // requests for them (PullURL: every request sent, retries included)
}

// PartSuffix is appended to the local file's name to make the name of the
// file a pull writes before it renames it over the local file.
const PartSuffix = ".part"

// PullURL is Pull of the package at url (http or https), read with
// remote.Open and opts; WithClient and the timeouts are the options a
// caller may want to set.
func PullURL(ctx context.Context, url, local string, ropts []remote.Option, opts ...Option) (*Result, error) {
	f, err := openURL(ctx, url, ropts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := Pull(ctx, f, local, opts...)
	if res != nil {
		// What arrived, the head request's bytes beyond the table and
		// retries included.
		st := f.Stats()
		res.Fetched, res.Requests = st.Bytes, int(st.Requests)
	}
	return res, err
}

// Pull makes the file local a byte-identical copy of the package src,
// taking what it can from local itself (when it exists: an older version
// of the package), from the seeds of WithSeeds and from LOCAL.part, and
// fetching the rest from src. See the package documentation for how, and
// for what is checked. local is replaced atomically (renamed over) and
// keeps its permission bits; when it was already the new file, it is not
// touched. A cancelled ctx stops the pull, keeping LOCAL.part for the next.
func Pull(ctx context.Context, src Source, local string, opts ...Option) (res *Result, err error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	p := newPuller(cfg, src, local)
	if err := p.readLayout(); err != nil {
		p.closeFiles()
		return nil, err
	}
	keep := false
	defer func() {
		p.closeFiles() // before the removal: Windows removes no open file
		if err != nil && !keep || p.res.UpToDate {
			os.Remove(p.part)
		}
	}()
	if err := p.openPart(); err != nil {
		keep = true // another pull's, or one that cannot be opened
		return nil, err
	}
	if p.digests == nil {
		p.res.Whole = true
		p.wholeSegments()
	} else if err := p.match(ctx); err != nil {
		keep = interrupted(err) || ctx.Err() != nil
		return nil, err
	}
	if p.res.UpToDate {
		return &p.res, nil // LOCAL.part goes, an interrupted pull's of the same file included
	}
	if err := p.write(ctx); err != nil {
		keep = interrupted(err) || ctx.Err() != nil
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := p.replace(); err != nil {
		keep = true // complete and checked: the next pull finds every chunk
		return nil, err
	}
	return &p.res, nil
}

// ErrBusy is the error of a pull of a file that another pull is updating.
var ErrBusy = errors.New("pull: another pull of this file is running")

// openPart opens (or creates) LOCAL.part and locks it against other pulls.
func (p *puller) openPart() error {
	f, err := os.OpenFile(p.part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if !lockFile(f) {
		f.Close()
		return fmt.Errorf("%w: %s is locked", ErrBusy, p.part)
	}
	p.out = f
	return nil
}

// newPuller returns a pull of src into local.
func newPuller(cfg config, src Source, local string) *puller {
	p := &puller{cfg: cfg, src: src, size: src.Size(), local: local, part: local + PartSuffix}
	p.fetchAt = src.ReadAt
	if f, ok := src.(interface {
		FetchAt([]byte, int64) (int, error)
	}); ok {
		p.fetchAt = f.FetchAt
	}
	p.res.Size = p.size
	return p
}

// Plan tells what Pull would do without doing it: it reads the header,
// the section table and the chunk digests of src and the local files,
// and returns the Result Pull would (Copied, Resumed, Fetched and
// Requests as Pull would copy, keep and fetch them, retries aside).
// Nothing is written, LOCAL.part included.
func Plan(ctx context.Context, src Source, local string, opts ...Option) (*Result, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	p := newPuller(cfg, src, local)
	p.dry = true
	defer p.closeFiles()
	if err := p.readLayout(); err != nil {
		return nil, err
	}
	if p.digests == nil {
		p.res.Whole = true
		p.wholeSegments()
	} else if err := p.match(ctx); err != nil {
		return nil, err
	}
	if p.res.UpToDate {
		return &p.res, nil
	}
	for _, s := range p.segs {
		if s.chunk >= 0 && p.state[s.chunk].file >= 0 {
			p.res.Copied += s.n
		}
	}
	runs, _ := p.runs()
	for _, r := range runs {
		n := p.segs[r.last].off + p.segs[r.last].n - p.segs[r.first].off
		p.res.Fetched += n
		p.res.Requests += int((n + maxRequest - 1) / maxRequest)
	}
	return &p.res, nil
}

// PlanURL is Plan of the package at url, read with remote.Open and
// ropts, as PullURL reads it.
func PlanURL(ctx context.Context, url, local string, ropts []remote.Option, opts ...Option) (*Result, error) {
	f, err := openURL(ctx, url, ropts)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Plan(ctx, f, local, opts...)
}

// openURL opens url as PullURL and PlanURL read it.
func openURL(ctx context.Context, url string, ropts []remote.Option) (*remote.File, error) {
	// Small blocks and head: a pull reads the header and table, then asks
	// for exact ranges (FetchAt); the head's bytes beyond the table would
	// be counted for nothing.
	return remote.Open(ctx, url, append([]remote.Option{remote.WithBlockSize(4 << 10), remote.WithHeadSize(16 << 10)}, ropts...)...)
}

// interrupted reports whether err stopped a pull that may go on later:
// a cancelled context, a failed request, a local read or write error.
func interrupted(err error) bool {
	var re *remote.Error
	var pe *fs.PathError
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &re) || errors.As(err, &pe)
}

// puller is one pull.
type puller struct {
	cfg     config
	src     Source
	fetchAt func([]byte, int64) (int, error)
	size    int64
	local   string
	part    string
	dry     bool // Plan: nothing is written

	head    []byte              // main header and section table, as served
	secs    []bpx.SectionHeader // the section table
	digests *pack.ChunkDigests  // nil: none usable
	dstart  int64               // the digests section's stored bytes
	dbytes  []byte

	segs  []segment // the file, in order
	state []source  // per chunk of digests.Chunks: where its bytes come from
	out   *os.File  // LOCAL.part
	files []*os.File

	res Result
}

// segment is a run of the new file: one chunk, or bytes no digest covers.
type segment struct {
	off, n int64
	chunk  int    // index in digests.Chunks, or -1
	known  []byte // for uncovered bytes already fetched: the header and table, the digests
}

// source is where a chunk's bytes come from.
type source struct {
	file int   // index in p.files, or fromSrc (fetch), or inPart (already in LOCAL.part)
	off  int64 // offset in that file
}

const (
	fromSrc = -1
	inPart  = -2
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
	at := -1
	for i, s := range r.Sections {
		p.secs[i] = s.SectionHeader
		if s.Type == pack.SectionChunkDigests && at < 0 {
			at = i
		}
	}
	if at < 0 || r.Header.Type != bpx.TypePackage {
		return nil
	}
	s := r.Sections[at]
	if s.Compressed() || s.StoredSize() > MaxDigestsSize {
		return fmt.Errorf("pull: chunk digests of %d bytes (flags %#x): more than %d or compressed: %w", s.StoredSize(), s.Flags, MaxDigestsSize, bpx.ErrTooLarge)
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
	data, err := r.Sections[at].Data()
	if err != nil {
		return fmt.Errorf("pull: chunk digests: %w", err)
	}
	d, err := pack.ParseChunkDigests(data, p.secs, at)
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

// chunkOK reports whether b is chunk i's bytes.
func (p *puller) chunkOK(i int, b []byte) bool {
	return sha256.Sum256(b) == p.digests.Chunks[i].Digest
}

func (p *puller) closeFiles() {
	for _, f := range p.files {
		f.Close()
	}
	if p.out != nil {
		p.out.Close()
	}
}

// replace renames LOCAL.part over LOCAL, with LOCAL's permission bits.
func (p *puller) replace() error {
	perm := fs.FileMode(0o644)
	if fi, err := os.Lstat(p.local); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	if err := p.out.Chmod(perm); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	if err := p.out.Sync(); err != nil {
		return err
	}
	if err := p.out.Close(); err != nil {
		return err
	}
	p.out = nil
	for _, f := range p.files {
		f.Close() // Windows renames over no open file
	}
	p.files = nil
	if err := os.Rename(p.part, p.local); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(p.local)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
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
