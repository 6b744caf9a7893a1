package pull

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
)

// pullWhole is PullURL from a server that answers range requests with the
// whole file (remote.ErrNoRange): the file is downloaded whole, with one
// plain GET, as a package without chunk digests is. Its size is the one
// its header and section table give (a Content-Length must agree, and
// nothing past it is taken); the file is written to LOCAL.part and
// checked as every pull checks it, then renamed over LOCAL. Nothing is
// taken from local files, and an interrupted download starts over.
func pullWhole(ctx context.Context, url, local string, ropts []remote.Option, cfg config) (res *Result, err error) {
	body, err := remote.Get(ctx, url, ropts...) // LOCAL was checked by PullURL
	if err != nil {
		return nil, err
	}
	defer body.Close()
	p := &puller{cfg: cfg, local: local, part: local + PartSuffix}
	p.res.Whole = true
	p.res.Requests = 1
	head, size, err := readHead(body)
	if err != nil {
		return nil, err
	}
	p.size, p.res.Size = size, size
	if n := body.Size(); n >= 0 && n != size {
		return nil, fmt.Errorf("pull: the server says %d bytes; the file's header and sections say %d: %w", n, size, bpx.ErrFormat)
	}
	defer func() {
		if p.out != nil {
			if err != nil {
				p.discard() // nothing to resume: a whole download starts over
			}
			p.closeFiles()
		}
	}()
	if err := p.openPart(); err != nil {
		return nil, err
	}
	if err := p.out.Truncate(0); err != nil {
		return nil, err
	}
	if limit, slow := cfg.fetchLimit("downloading", size); limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, limit, slow)
		defer cancel()
		stop := context.AfterFunc(ctx, func() { body.Close() })
		defer stop()
	}
	if _, err := p.out.Write(head); err != nil {
		return nil, err
	}
	n, err := io.CopyN(p.out, body, size-int64(len(head)))
	p.res.Fetched = int64(len(head)) + n
	if cerr := context.Cause(ctx); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("pull: downloading %s: %w", url, err)
	}
	var one [1]byte
	if m, _ := io.ReadFull(body, one[:]); m > 0 {
		return nil, fmt.Errorf("pull: the server sends more than the file's %d bytes: %w", size, bpx.ErrFormat)
	}
	if err := p.out.Sync(); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := p.replace(); err != nil {
		return nil, err
	}
	return &p.res, nil
}

// readHead reads a BPX file's main header and section table from the
// start of r, and returns them and the file's size as they give it: where
// its sections end, which its header's file size must match if it states
// one (checkExtent).
func readHead(r io.Reader) ([]byte, int64, error) {
	head := make([]byte, bpx.MainHeaderSize)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, 0, fmt.Errorf("pull: reading the header: %w", err)
	}
	h := bpx.UnmarshalMainHeader(head)
	if h.SectionNum > bpx.DefaultMaxSections {
		return nil, 0, fmt.Errorf("pull: %d sections: more than %d: %w", h.SectionNum, bpx.DefaultMaxSections, bpx.ErrFormat)
	}
	// Read as it arrives: what is allocated follows the bytes the server
	// sends, not the count the header claims.
	var tb bytes.Buffer
	n := int64(h.SectionNum) * bpx.SectionHeaderSize
	if m, err := tb.ReadFrom(io.LimitReader(r, n)); err != nil || m < n {
		return nil, 0, fmt.Errorf("pull: reading the section table: %d of %d bytes: %w", m, n, orErr(err, io.ErrUnexpectedEOF))
	}
	table := tb.Bytes()
	head = append(head, table...)
	end := int64(len(head))
	for i := range int(h.SectionNum) {
		s := bpx.UnmarshalSectionHeader(table[i*bpx.SectionHeaderSize:])
		end = max(end, int64(s.Pointer)+int64(s.StoredSize()))
	}
	// The header and table read as any reader reads them (the header's
	// checksum, the sections within the file), over the bytes at hand.
	known := &knownBytes{size: end}
	known.add(0, head)
	rd, err := bpx.NewReader(known, end)
	if err != nil {
		return nil, 0, fmt.Errorf("pull: %w", err)
	}
	if err := checkExtent(rd, int64(len(head)), end); err != nil {
		return nil, 0, err
	}
	return head, end, nil
}

// orErr returns err, or def if err is nil.
func orErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}
