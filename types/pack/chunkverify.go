package pack

import (
	"crypto/sha256"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/cdc"
)

// VerifyChunkDigests checks the package's SectionChunkDigests, if it has
// one, against the bytes it describes: the stored bytes of the sections
// before it, cut as the Writer cuts them (a pull cuts a player's files so),
// must make the chunks the list gives, each of its length and SHA-256. A
// chunk that differs is an error matching bpx.ErrChecksum that names its
// file offset; a list that does not parse (ParseChunkDigests), one
// matching bpx.ErrFormat. Readers ignore the list, so such a package reads
// well, but no pull can use it.
//
// Cost: the stored bytes are read once more, not decoded, and cut and
// hashed at about 1.5 GB/s for each of the two on one processor, on up to
// GOMAXPROCS of them; memory: twice the longest chunk the list gives, per
// processor (at most 2·Max: 128 KiB with the 64 KiB chunks of packages
// below 16 GiB).
func (p *Package) VerifyChunkDigests() error {
	d, err := ReadChunkDigests(p.Reader)
	if d == nil || err != nil {
		return err
	}
	return d.check(fileOf(p.Reader), [][]Chunk{d.Chunks})
}

// fileOf returns the file of the sections of r, which has at least one.
func fileOf(r *bpx.Reader) io.ReaderAt {
	ra, _, _ := r.Sections[0].OpenRaw().Outer()
	return ra
}

// check compares runs of d's chunks, each a run of consecutive chunks,
// with the bytes of ra they name: from the offset of a run's first chunk
// the bytes are cut as the Writer cut them (a cut depends only on the
// bytes from the cut before it), and each chunk must have the length and
// SHA-256 the list gives. The runs are split among up to GOMAXPROCS
// goroutines; the error returned is that of the first chunk, in the
// order of runs, that differs.
func (d *ChunkDigests) check(ra io.ReaderAt, runs [][]Chunk) error {
	workers := runtime.GOMAXPROCS(0)
	total := 0
	for _, r := range runs {
		total += len(r)
	}
	piece := max(total/workers+1, 64)
	var jobs [][]Chunk
	for _, r := range runs {
		for len(r) > 0 {
			n := min(len(r), piece)
			jobs = append(jobs, r[:n])
			r = r[n:]
		}
	}
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				errs[i] = d.checkRun(ra, jobs[i], &buf)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRun is check for one run, cut with the buffer *buf.
func (d *ChunkDigests) checkRun(ra io.ReaderAt, run []Chunk, buf *[]byte) error {
	first := run[0].Off
	// A Max beyond the bytes left cuts as one just above them.
	p := cdc.Params{Min: d.Min, Avg: d.Avg, Max: int(min(int64(d.Max), d.End-first+1))}
	// The buffer follows the longest chunk the run lists, not the Max a
	// list declares (up to 256 MiB): where the bytes make chunks of at
	// most that length, they are cut as with a buffer of 2·Max; where
	// they would make a longer one, it comes out longer than any listed,
	// and differs as it must. (A list declaring 64 MiB chunks of a 48 MB
	// package made VerifyAll hold 96 MB a processor.)
	longest := 0
	for _, c := range run {
		longest = max(longest, int(c.Len))
	}
	n := min(int64(longest)+1, d.End-first)
	need := 2*int(min(int64(p.Max), n)) + 1
	if cap(*buf) < need {
		*buf = make([]byte, need)
	}
	c := cdc.NewChunkerFor(io.NewSectionReader(ra, first, d.End-first), n, p, (*buf)[:need])
	for _, want := range run {
		b, err := c.Next()
		if err == io.EOF {
			b, err = nil, nil // ParseChunkDigests made the chunks end at End: not reached
		}
		if err != nil {
			return fmt.Errorf("pack: chunk digests (section %d): reading the chunk at offset %d: %w", d.sec, want.Off, err)
		}
		if sum := sha256.Sum256(b); len(b) != int(want.Len) || sum != want.Digest {
			return fmt.Errorf("pack: chunk digests (section %d): the chunk at offset %d: the list gives %d bytes of SHA-256 %x…, the bytes there cut to %d of SHA-256 %x…: %w",
				d.sec, want.Off, want.Len, want.Digest[:8], len(b), sum[:8], bpx.ErrChecksum)
		}
	}
	return nil
}

// chunkMemo is the package's chunk digests, parsed once for VerifySection.
type chunkMemo struct {
	once sync.Once
	d    *ChunkDigests // nil: none, or err
	at   int           // the section's index
	err  error         // why the list does not parse
}

// verifyChunksIn checks the chunks of the package's chunk digests that
// start in the stored bytes of section s, which VerifySection has just
// read (they are in the system's cache, or package remote's: the pass
// fetches each byte about once); for the chunk digests section itself,
// that its list parses.
func (p *Package) verifyChunksIn(s *bpx.Section) error {
	m := &p.vmemo.chunks
	m.once.Do(func() {
		if cs := p.Reader.FindSection(SectionChunkDigests); cs != nil {
			m.at = cs.Index
			m.d, m.err = ReadChunkDigests(p.Reader)
		}
	})
	switch {
	case m.err != nil && s.Index == m.at:
		return m.err
	case m.d == nil || s.Index >= m.at:
		return nil
	}
	c := m.d.Chunks
	lo, hi := int64(s.Pointer), int64(s.Pointer)+int64(s.StoredSize())
	i := sort.Search(len(c), func(i int) bool { return c[i].Off >= lo })
	j := sort.Search(len(c), func(j int) bool { return c[j].Off >= hi })
	if i == j {
		return nil
	}
	return m.d.check(fileOf(p.Reader), [][]Chunk{c[i:j]})
}
