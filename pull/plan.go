package pull

import (
	"context"

	"github.com/gobpx/bpx/remote"
)

// Plan tells what Pull would do without doing it: it reads the header,
// the section table and the chunk digests of src (and with
// WithTrustedKeys checks its signature as Pull does) and the local files,
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
	if err := p.checkTrust(); err != nil {
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
		if s.chunkNo() >= 0 && p.state[s.chunkNo()].file >= 0 {
			p.res.Copied += s.size()
		}
	}
	runs, _ := p.runs()
	for _, r := range runs {
		n := p.segs[r.last].off + p.segs[r.last].size() - p.segs[r.first].off
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
