package pack

import (
	"io"

	"github.com/gobpx/bpx"
)

const (
	// maxPrefetch bounds the bytes prefetchTables reads in one ReadAt.
	maxPrefetch = 4 << 20
	// prefetchAlign is what prefetchTables rounds its end up to: the
	// block of a remote reader's cache (remote.DefaultBlockSize), which
	// caches whole blocks only, so that the block the tables end in is
	// not asked for again by the read that follows them.
	prefetchAlign = 64 << 10
)

// prefetchTables reads, from a remote file, the sections that opening a
// package and reading its first object read (the object table, the
// strings, the metadata and the object digests) with one ReadAt when they
// lie together, at most maxPrefetch bytes, so that what a remote reader's
// head (remote.DefaultHeadSize) did not cover comes in one more request,
// rather than in one a section, a run of reads that would also start the
// remote reader's read-ahead. The bytes are read to be cached by r: the
// sections are then read, and checked, as from any file; an error here is
// left for those reads to report. A package with a path index reads its
// tables only when it needs them, and is not prefetched.
func prefetchTables(r io.ReaderAt, size int64, rd *bpx.Reader) {
	if rd.FindSection(SectionPathIndex) != nil {
		return
	}
	lo, hi := int64(-1), int64(-1)
	for _, s := range rd.Sections {
		switch s.Type {
		case SectionObjectTable, SectionStrings, SectionMetadata, SectionDigests:
		default:
			continue
		}
		a, b := int64(s.Pointer), int64(s.Pointer)+int64(s.StoredSize())
		if lo >= 0 && (a < hi || a > hi+bpx.SectionHeaderSize) {
			return // not together: each is read on its own
		}
		if lo < 0 {
			lo = a
		}
		hi = b
		if hi-lo > maxPrefetch {
			return
		}
	}
	if lo < 0 || hi <= lo {
		return
	}
	hi = min((hi+prefetchAlign-1)/prefetchAlign*prefetchAlign, size)
	buf := make([]byte, hi-lo)
	r.ReadAt(buf, lo)
}
