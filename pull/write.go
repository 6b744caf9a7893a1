package pull

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/gobpx/bpx"
)

// write assembles the new file in LOCAL.part: the known bytes, the chunks
// of local files (checked again as they are copied) and the fetched rest.
func (p *puller) write(ctx context.Context) error {
	if p.digests == nil {
		// Without digests nothing in LOCAL.part can be checked: the
		// download starts over.
		if err := p.out.Truncate(0); err != nil {
			return err
		}
	}
	if err := p.out.Truncate(p.size); err != nil {
		return err
	}
	var buf []byte
	if p.digests != nil {
		buf = make([]byte, p.largest)
	}
	for _, s := range p.segs {
		switch {
		case s.knownNo() >= 0:
			if _, err := p.out.WriteAt(p.knownOf(s), s.off); err != nil {
				return err
			}
		case s.chunkNo() >= 0 && p.state[s.chunkNo()].file >= 0:
			src := p.state[s.chunkNo()]
			b := buf[:s.size()]
			if _, err := p.files[src.file].ReadAt(b, src.off); err != nil || !p.chunkOK(int(s.chunkNo()), b) {
				p.state[s.chunkNo()] = source{file: fromSrc} // changed since it was read: fetched
				continue
			}
			if _, err := p.out.WriteAt(b, s.off); err != nil {
				return err
			}
			p.res.Copied += s.size()
		}
	}
	if err := p.fetchAll(ctx); err != nil {
		p.out.Sync() // what arrived is kept for the next pull
		return err
	}
	return p.out.Sync()
}

// needs reports whether segment s is fetched.
func (p *puller) needs(s segment) bool {
	if s.knownNo() >= 0 {
		return false
	}
	return s.chunkNo() < 0 || p.state[s.chunkNo()].file == fromSrc
}

// run is a run of adjacent segments fetched together.
type run struct{ first, last int } // segment indexes, inclusive

// mergeGap is the most bytes of chunks a pull has already that it fetches
// again to join two runs into one request: a request costs a round trip,
// and 32 KiB is what a connection of 10 Mbit/s moves in 25 ms (on
// golang.org/x/tools v0.51.0 -> v0.52.0, bench/pull.sh: 5 requests
// instead of 7, 2.5% more bytes; 64 KiB: 4 requests, 6.3% more). The bytes
// of such chunks are checked against their digests as any fetched chunk.
var mergeGap int64 = 32 << 10 // a variable for tests

// runs returns the runs to fetch: adjacent segments merged, and runs
// apart by at most mergeGap bytes of chunks (never bytes no digest covers),
// up to MaxRequest bytes a run unless one segment is larger. It also
// returns the bytes needed, gaps not counted.
func (p *puller) runs() ([]run, int64) {
	var out []run
	var total int64
	gap, gapOK := int64(0), false // the segments since the last run's: their bytes, and whether all are chunks
	for i, s := range p.segs {
		if !p.needs(s) {
			gap += s.size()
			gapOK = gapOK && s.chunkNo() >= 0
			continue
		}
		total += s.size()
		if n := len(out); n > 0 {
			r := &out[n-1]
			if (r.last == i-1 || gapOK && gap <= mergeGap) && s.off+s.size()-p.segs[r.first].off <= maxRequest {
				r.last = i
				gap, gapOK = 0, true
				continue
			}
		}
		out = append(out, run{i, i})
		gap, gapOK = 0, true
	}
	return out, total
}

// fetchAll fetches the runs, cfg.concurrency at a time, each in requests
// of at most MaxRequest bytes, checking every chunk against its digest.
func (p *puller) fetchAll(ctx context.Context) error {
	runs, total := p.runs()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if limit, slow := p.cfg.fetchLimit("fetching", total); total > 0 && limit > 0 {
		timer := time.AfterFunc(limit, func() {
			cancel(slow)
			if p.abort != nil {
				p.abort(slow) // the requests in flight
			}
		})
		defer timer.Stop()
	}
	work := make(chan run)
	var mu sync.Mutex // guards p.res, done and the progress calls
	var done int64
	var wg sync.WaitGroup
	for range min(p.cfg.concurrency, len(runs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, maxRequest)
			for r := range work {
				if err := p.fetchRun(ctx, r, buf, func(n int64) {
					mu.Lock()
					defer mu.Unlock()
					p.res.Fetched += n
					p.res.Requests++
					done += n
					if p.cfg.progress != nil {
						p.cfg.progress(Progress{Phase: "fetch", Done: done, Total: total})
					}
				}); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for _, r := range runs {
		select {
		case work <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// fetchRun fetches one run in requests of at most MaxRequest bytes and
// writes it, hashing its chunks across the requests.
func (p *puller) fetchRun(ctx context.Context, r run, buf []byte, fetched func(int64)) error {
	start := p.segs[r.first].off
	end := p.segs[r.last].off + p.segs[r.last].size()
	seg := r.first
	h := sha256.New() // one a run, reset for each chunk: a new one a chunk was most of a pull's garbage
	var sum [sha256.Size]byte
	for off := start; off < end; {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		b := buf[:min(end-off, maxRequest)]
		if _, err := p.fetchAt(b, off); err != nil {
			return fmt.Errorf("pull: fetching [%d, %d): %w", off, off+int64(len(b)), err)
		}
		fetched(int64(len(b)))
		// Hash the chunks the bytes cover; write once they check.
		for at := off; at < off+int64(len(b)); {
			s := p.segs[seg]
			k := min(s.off+s.size(), off+int64(len(b))) - at
			if s.chunkNo() >= 0 {
				h.Write(b[at-off : at-off+k])
			}
			at += k
			if at == s.off+s.size() {
				if s.chunkNo() >= 0 {
					if h.Sum(sum[:0]); !bytes.Equal(sum[:], p.digests.Digest(int(s.chunkNo()))) {
						return fmt.Errorf("pull: the server's bytes [%d, %d) do not match their digest in its chunk digests (if a new version was published during the pull, under the same ETag, run it again): %w", s.off, s.off+s.size(), bpx.ErrChecksum)
					}
					h.Reset()
				}
				seg++
			}
		}
		if _, err := p.out.WriteAt(b, off); err != nil {
			return err
		}
		off += int64(len(b))
	}
	return nil
}
