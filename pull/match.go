package pull

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/cdc"
	"github.com/gobpx/bpx/types/pack"
)

// match finds where each chunk's bytes come from: LOCAL.part at the
// chunk's own offset (an interrupted pull), the local file and the seeds
// wherever they hold them, or else src. It also tells whether the local
// file already is the new one.
func (p *puller) match(ctx context.Context) error {
	d := p.digests
	if err := p.resume(); err != nil {
		return err
	}
	// The chunks still wanted, by digest: 4 bytes a chunk, where a map
	// took 50 to 100.
	want := make([]int32, 0, d.Len())
	for i := range d.Len() {
		if p.state[i].file != inPart {
			want = append(want, int32(i))
		}
	}
	slices.SortFunc(want, func(a, b int32) int {
		if c := bytes.Compare(d.Digest(int(a)), d.Digest(int(b))); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	params := cdc.Params{Min: d.Min, Avg: d.Avg, Max: d.Max}
	paths := append([]string{p.local}, p.cfg.seeds...)
	var total, largest int64
	haveLocal := false // p.files[0] is the local file
	for _, name := range paths {
		// Regular files only, opened without waiting on a FIFO.
		f, err := openLocal(name)
		if err != nil {
			if name == p.local && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue // a missing local file is a first download; an unreadable seed is skipped
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			continue
		}
		haveLocal = haveLocal || name == p.local && len(p.files) == 0
		p.files = append(p.files, f)
		total += fi.Size()
		largest = max(largest, fi.Size())
	}
	// One buffer for every file: twice the longest chunk, or less for
	// files shorter than that (a list may declare chunks of up to
	// MaxChunk for a package of a few megabytes).
	sc := &scanner{p: p, want: want, params: params, buf: make([]byte, 2*min(int64(params.Max), largest)+1), total: total}
	hits := 0 // chunks of the local file at the new file's offsets
	for k, f := range p.files {
		n, err := sc.scan(ctx, k, f, k == 0 && haveLocal)
		if err != nil {
			return err
		}
		if k == 0 {
			hits = n
		}
	}
	if haveLocal && hits == d.Len() {
		up, err := p.sameUncovered(p.files[0])
		if err != nil {
			return err
		}
		p.res.UpToDate = up
	}
	return nil
}

// resume opens LOCAL.part, if there is one, and marks the chunks it
// already holds, at their own offsets.
func (p *puller) resume() error {
	f := p.out    // Pull's, locked
	if f == nil { // Plan's: what Pull would resume
		var err error
		if f, err = openPartForPlan(p.part); f == nil {
			return err
		}
		p.out = f
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	buf := make([]byte, p.largest)
	for i := range p.digests.Len() {
		c := p.segs[p.c0+i]
		if c.off+c.size() > fi.Size() {
			break
		}
		b := buf[:c.size()]
		if _, err := f.ReadAt(b, c.off); err != nil {
			return err
		}
		if p.chunkOK(i, b) {
			p.state[i] = source{file: inPart, off: c.off}
			p.res.Resumed += c.size()
		}
	}
	return nil
}

// scanner cuts local files into chunks and records those the pull wants.
type scanner struct {
	p      *puller
	want   []int32 // chunks wanted, sorted by digest
	params cdc.Params
	buf    []byte
	total  int64 // bytes of every file
	done   int64
	next   int64 // when to report progress
}

// scan cuts file k into chunks, from the end of its section table if it
// is a BPX file (where the sections' stored bytes start, as the digests
// were cut), else from its start, as one stream, and returns how many of
// its chunks are the new file's at the same offset when local is set.
func (sc *scanner) scan(ctx context.Context, k int, f *os.File, local bool) (int, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	type span struct{ off, n int64 }
	spans := []span{{0, fi.Size()}}
	if r, err := bpx.NewReader(f, fi.Size()); err == nil && r.Header.Version != 0 {
		// Up to its own chunk digests, if it has them: a package that is
		// the new one then cuts its last chunk where the new one does.
		start := min(bpx.MainHeaderSize+int64(len(r.Sections))*bpx.SectionHeaderSize, fi.Size())
		end := fi.Size()
		if s := r.FindSection(pack.SectionChunkDigests); s != nil && int64(s.Pointer) >= start && int64(s.Pointer) <= end {
			end = int64(s.Pointer)
		}
		spans = []span{{start, end - start}}
	}
	p := sc.p
	n := p.digests.Len()
	hits := 0
	for _, s := range spans {
		c := cdc.NewChunkerFor(io.NewSectionReader(f, s.off, s.n), s.n, sc.params, sc.buf)
		for {
			if err := ctx.Err(); err != nil {
				return 0, context.Cause(ctx)
			}
			at := s.off + c.Seen
			b, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, err
			}
			sum := sha256.Sum256(b)
			sc.found(sum, source{file: k, off: at})
			if local {
				i := sort.Search(n, func(i int) bool { return p.segs[p.c0+i].off >= at })
				if i < n && p.segs[p.c0+i].off == at && p.segs[p.c0+i].size() == int64(len(b)) && bytes.Equal(p.digests.Digest(i), sum[:]) {
					hits++
				}
			}
			sc.progress(int64(len(b)))
		}
	}
	return hits, nil
}

// found records that src holds the bytes of digest sum: the source of
// every chunk wanted with that digest that has none yet.
func (sc *scanner) found(sum [sha256.Size]byte, src source) {
	d, state := sc.p.digests, sc.p.state
	i, _ := slices.BinarySearchFunc(sc.want, sum, func(j int32, sum [sha256.Size]byte) int {
		return bytes.Compare(d.Digest(int(j)), sum[:])
	})
	// All the chunks of one digest get their source at once: once the
	// first has one, so do the others (a list of a million equal digests
	// costs one pass over them, not one per local chunk).
	for ; i < len(sc.want) && bytes.Equal(d.Digest(int(sc.want[i])), sum[:]) && state[sc.want[i]].file == fromSrc; i++ {
		state[sc.want[i]] = src
	}
}

func (sc *scanner) progress(n int64) {
	sc.done += n
	if fn := sc.p.cfg.progress; fn != nil && (sc.done >= sc.next || sc.done == sc.total) {
		fn(Progress{Phase: "scan", Done: sc.done, Total: sc.total})
		sc.next = sc.done + 1<<20
	}
}

// sameUncovered reports whether f, whose chunks are all the new file's
// at their offsets, also holds the new file's other bytes and size:
// whether it is the new file. The bytes no digest covers and that are
// not yet known (a signature) are fetched to be compared.
func (p *puller) sameUncovered(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() != p.size {
		return false, err
	}
	for _, s := range p.segs {
		if s.chunkNo() >= 0 {
			continue
		}
		if s.size() > MaxRequest {
			return false, nil // not worth it: a gap that large is no package of ours
		}
		want := p.knownOf(s)
		if want == nil {
			want = make([]byte, s.size())
			if _, err := p.fetchAt(want, s.off); err != nil {
				return false, err
			}
			p.res.Fetched += s.size()
			p.res.Requests++
		}
		have := make([]byte, s.size())
		if _, err := f.ReadAt(have, s.off); err != nil {
			return false, err
		}
		if !bytes.Equal(have, want) {
			return false, nil
		}
	}
	return true, nil
}
