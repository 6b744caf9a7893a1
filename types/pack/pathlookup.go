package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gobpx/bpx"
)

// pathIndex is a package's usable path index (see SectionPathIndex): its
// header and root, read at open. Its pages are read as lookups need them,
// through the package's cache.
type pathIndex struct {
	s     *bpx.Section
	hdr   pathIndexHeader
	pages []pathPage
	nobj  uint64 // objects in the object table

	// The raw tables every entry is checked against (see checkEntry).
	table, names *bpx.Section
}

// openPathIndex returns the package's path index, or nil when it has none
// or one it cannot use: of another object table or strings (stale),
// malformed, compressed, over compressed tables (its entries could not be
// checked against their rows without reading the tables whole: see
// checkEntry), or made for longer paths than the reader's
// WithMaxPathLength. Only I/O errors are returned.
func openPathIndex(rd *bpx.Reader, cfg config) (*pathIndex, error) {
	if cfg.skipNames || rd.Header.Version < bpx.Version2 {
		return nil, nil
	}
	var s, ot, st *bpx.Section
	for _, sec := range rd.Sections {
		var slot **bpx.Section
		switch sec.Type {
		case SectionPathIndex:
			slot = &s
		case SectionObjectTable:
			slot = &ot
		case SectionStrings:
			slot = &st
		default:
			continue
		}
		if *slot != nil {
			return nil, nil // two of a kind: the tables decide
		}
		*slot = sec
	}
	if s == nil || ot == nil || s.Compressed() || s.CSize != s.USize || s.USize < pathIndexHeaderSize ||
		!raw(ot) || st != nil && !raw(st) {
		return nil, nil
	}
	var hb [pathIndexHeaderSize]byte
	if err := readIndex(s, hb[:], 0); err != nil {
		return nil, unusable(err)
	}
	h, err := parsePathIndexHeader(hb[:])
	if err != nil {
		return nil, nil
	}
	if h.table != bindingOf(ot) || h.names != bindingOf(st) ||
		cfg.maxPathLen > 0 && uint64(h.longest) > uint64(cfg.maxPathLen) ||
		h.rootSize > maxPathRoot || uint64(h.rootSize) > uint64(s.USize)-pathIndexHeaderSize {
		return nil, nil
	}
	root := make([]byte, h.rootSize)
	if err := readIndex(s, root, pathIndexHeaderSize); err != nil {
		return nil, unusable(err)
	}
	pages, err := parsePathRoot(&h, root, uint64(s.USize))
	if err != nil {
		return nil, nil
	}
	return &pathIndex{s: s, hdr: h, pages: pages, nobj: uint64(ot.USize) / ObjectEntrySize, table: ot, names: st}, nil
}

// raw reports whether s is stored as it is, so that any of its bytes can
// be read in place.
func raw(s *bpx.Section) bool { return !s.Compressed() && s.CSize == s.USize }

// unusable turns an error reading the index into none (a section cut short
// by the end of the file is a damaged index, which the tables replace) or
// returns it (the file could not be read).
func unusable(err error) error {
	if errors.Is(err, errPathIndex) {
		return nil
	}
	return err
}

// readIndex reads b from the raw index section s at offset off; a section
// that ends early is an unusable index.
func readIndex(s *bpx.Section, b []byte, off int64) error {
	_, err := s.ReadAt(b, off)
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return pathIndexError("section %d is cut short", s.Index)
	}
	return err
}

// pageKey is the cache key of page i of the path index.
func pageKey(i int) cacheKey { return cacheKey{kind: keyPage, n: int64(i)} }

// page returns page i's entries and restart table, read and checked whole
// when it is first loaded into the cache, and its cache entry, pinned
// (release it when done with the page).
func (p *Package) page(ix *pathIndex, i int) (pathPageData, *centry, error) {
	pg := &ix.pages[i]
	load := func(buf []byte) ([]byte, error) {
		buf = slices.Grow(buf[:0], int(pg.size))[:pg.size]
		if err := readIndex(ix.s, buf, int64(pg.off)); err != nil {
			return buf[:0], err
		}
		if err := checkPage(&ix.hdr, ix.pages, i, buf, ix.nobj); err != nil {
			return buf[:0], err
		}
		return buf, nil
	}
	e, err := p.cache.get(pageKey(i), int64(pg.size), load, false)
	if err != nil {
		return pathPageData{}, nil, err
	}
	return pageView(e.data, pg), e, nil
}

// pathCursor walks the entries of an index in order. It follows how much
// of a target path (aim) the path at hand shares, from what each entry
// shares with the one before: a step costs the bytes of the entry, however
// long its path.
type pathCursor struct {
	p    *Package
	ix   *pathIndex
	page int // the page of the entry at hand
	pd   pathPageData
	dec  entryDecoder // its key is the path at hand
	i    int          // the number of the entry at hand in its page
	e    pathEntry    // the entry at hand
	ok   bool         // there is an entry at hand (false: past the last)
	pin  *centry      // the cache entry of the page

	unnamed bool   // e.name is left empty (the path is in dec.key)
	t       string // the target path (seek, aim)
	lcp     int    // how long a prefix the path at hand shares with t
}

// close releases the cursor's page.
func (c *pathCursor) close() {
	if c.pin != nil {
		c.p.cache.release(c.pin)
		c.pin = nil
	}
}

// keyBufs keeps the key buffers of cursors done with (done), for the next
// seek: a path may be 64 KiB, which a lookup would otherwise allocate and
// clear each time (a tenth of a lookup of such a path).
var keyBufs sync.Pool // of *[]byte

// done releases the cursor's page and keeps its key buffer for another
// cursor: neither the cursor nor its key may be used after.
func (c *pathCursor) done() {
	c.close()
	if k := c.dec.key; cap(k) > 0 && cap(k) <= maxPathIndexKey {
		k = k[:0]
		c.dec.key = nil
		keyBufs.Put(&k)
	}
}

// seek returns a cursor at the first entry whose path is at or after t in
// ComparePaths order (past the last if none), aimed at t, its entries
// unnamed. Every comparison on the way skips what the paths around it are
// known to share with t.
func (p *Package) seek(ix *pathIndex, t string) (*pathCursor, error) {
	c := &pathCursor{p: p, ix: ix, unnamed: true, t: t}
	if k, ok := keyBufs.Get().(*[]byte); ok {
		c.dec.key = *k
	}
	pages := ix.pages
	j, llo, lhi := searchPath(len(pages), func(i int) string { return pages[i].first }, ix.shared(len(t)), t, 0, 0)
	if j == 0 {
		if err := c.enter(0); err != nil {
			return nil, err
		}
		if len(pages) > 0 {
			c.at(0, lhi)
		}
		return c, nil
	}
	// The entry is in page j-1, whose first path (its restart point 0) is
	// before t, or else the first of page j.
	if err := c.enter(j - 1); err != nil {
		return nil, err
	}
	pd := &c.pd
	r, lcp, _ := searchPath(pd.nrestarts()-1, func(r int) []byte { return pd.restartKey(r + 1) }, nil, t, llo, lhi)
	c.at(r, lcp)
	for c.ok && c.page == j-1 && !pathGE(c.dec.key, t, c.lcp) {
		if err := c.next(); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// searchPath returns the first i < n whose path key(i) is at or after t in
// ComparePaths order (n if none), the keys being in that order, and how
// long a prefix t shares with key(i-1) and key(i). lo and hi are what t is
// known to share with a path before key(0) and one after key(n-1) (0 if
// none): the paths between two share at least the lesser of what they
// share with t, which the comparisons skip. shared (nil: none known)
// returns a prefix key(a) and key(b) are known to share, for a < b.
func searchPath[K string | []byte](n int, key func(int) K, shared func(a, b int) int, t string, lo, hi int) (i, llo, lhi int) {
	i, j := 0, n
	for i < j {
		m := int(uint(i+j) >> 1)
		k := key(m)
		s := min(lo, hi)
		if shared != nil {
			// What key(m) shares with a bound that shares as much or more
			// with t, it shares with t.
			if i > 0 {
				s = max(s, min(lo, shared(i-1, m)))
			}
			if j < n {
				s = max(s, min(hi, shared(m, j)))
			}
		}
		s = min(s, len(k))
		l := s + commonPrefix(k[s:], t[s:])
		if pathGE(k, t, l) {
			j, hi = m, l
		} else {
			i, lo = m+1, l
		}
	}
	return i, lo, hi
}

// shared returns the shared function of searchPath for the root's first
// paths: the least of what the pages from a+1 to b share with the one
// before, if that takes fewer than budget/8 steps (else 0), so that it
// never costs more than comparing budget bytes.
func (ix *pathIndex) shared(budget int) func(a, b int) int {
	return func(a, b int) int {
		if b-a > budget/8 {
			return 0
		}
		s := uint32(math.MaxUint32)
		for _, pg := range ix.pages[a+1 : b+1] {
			s = min(s, pg.shared)
		}
		return int(s)
	}
}

// at moves the cursor to restart point r of its page, whose path shares
// its first lcp bytes with the target (lcp < 0: not known).
func (c *pathCursor) at(r, lcp int) {
	d := &c.dec
	d.pos, d.key, c.i = c.pd.restart(r), d.key[:0], r*pathRestart
	c.read()
	if lcp < 0 {
		lcp = commonPrefix(d.key, c.t)
	}
	c.lcp = lcp
}

// load puts the cursor at restart point r of page i (past the end when
// there is no page i).
func (c *pathCursor) load(i, r int) error {
	err := c.enter(i)
	if err == nil && c.page < len(c.ix.pages) {
		c.at(r, -1)
	}
	return err
}

// enter loads page i, with the decoder at its start and the path at hand
// in its key (past the end when there is no page i).
func (c *pathCursor) enter(i int) error {
	c.close()
	c.page, c.ok = i, false
	if i >= len(c.ix.pages) {
		return nil
	}
	pd, pin, err := c.p.page(c.ix, i)
	if err != nil {
		return err
	}
	c.pd, c.pin = pd, pin
	c.dec = entryDecoder{b: pd.entries, digests: c.ix.hdr.flags&pathIndexDigests != 0, key: c.dec.key}
	c.i = 0
	return nil
}

// read decodes the entry at the decoder's position, which checkPage
// decoded already.
func (c *pathCursor) read() {
	c.ok = c.dec.next(&c.e, c.ix.hdr.longest, c.i%pathRestart == 0) == nil
	if c.ok && !c.unnamed {
		c.e.name = string(c.dec.key)
	}
}

// next moves the cursor to the next entry, and follows what its path
// shares with the target from what it shares with the path before: at
// most the bytes the entry adds are compared.
func (c *pathCursor) next() error {
	if !c.ok {
		return nil
	}
	c.i++
	if c.i == c.pd.n {
		// The decoder of the next page starts from the path at hand.
		if err := c.enter(c.page + 1); err != nil || c.page >= len(c.ix.pages) {
			return err
		}
	}
	c.read()
	switch d := &c.dec; {
	case !c.ok:
	case d.common < c.lcp:
		c.lcp = d.common
	case d.common == c.lcp:
		c.lcp += commonPrefix(d.key[c.lcp:], c.t[c.lcp:])
	}
	return nil
}

// aim makes the cursor follow what its paths share with t, a prefix of its
// target.
func (c *pathCursor) aim(t string) { c.t, c.lcp = t, min(c.lcp, len(t)) }

// indexLookup finds name, a valid fs path other than ".", in the index: a
// file (its entry), a directory (the run of paths below it), or neither.
func (p *Package) indexLookup(ix *pathIndex, name string) (e pathEntry, isDir, found bool, err error) {
	c, err := p.seek(ix, name)
	if err != nil {
		return e, false, false, err
	}
	defer c.done()
	if !c.ok || c.lcp != len(name) {
		return e, false, false, nil
	}
	if key := c.dec.key; len(key) > len(name) {
		return e, key[len(name)] == '/', false, nil
	}
	e = c.e
	e.name = name // the path at hand: no copy
	return e, false, true, nil
}

// below reports whether path is below directory dir.
func below(path, dir string) bool {
	return len(path) > len(dir) && path[len(dir)] == '/' && strings.HasPrefix(path, dir)
}

// indexChild is an entry of a directory listed through the index.
type indexChild struct {
	elem  string
	isDir bool
	e     pathEntry // a file's entry
}

// indexChildren returns the entries of directory dir ("." for the root)
// that follow the entry named after ("" for the first), at most limit of
// them (all if limit <= 0). A subdirectory costs a seek past its run of
// paths, unless that run ends in the page at hand. The paths are compared
// with dir in the bytes each entry adds: it costs the bytes of the entries
// it passes over, and a file its path.
func (p *Package) indexChildren(ix *pathIndex, dir, after string, limit int) ([]indexChild, error) {
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	t := prefix // the first path below dir
	if after != "" {
		// Past after and what is below it: NUL is the least byte after '/'
		// in ComparePaths order.
		t = prefix + after + "\x00"
	}
	c, err := p.seek(ix, t)
	var out []indexChild
	if err == nil {
		c.aim(prefix)
	}
	for err == nil && c.ok && c.lcp == len(prefix) && (limit <= 0 || len(out) < limit) {
		rest := c.dec.key[len(prefix):]
		i := bytes.IndexByte(rest, '/')
		if i < 0 {
			e := c.e
			e.name = string(c.dec.key)
			out = append(out, indexChild{elem: e.name[len(prefix):], e: e})
			err = c.next()
			continue
		}
		out = append(out, indexChild{elem: string(rest[:i]), isDir: true})
		// Skip the subdirectory's run, the paths that share their first n
		// bytes ("dir/sub/") with the one at hand: within the page, else
		// by a seek.
		n := len(prefix) + i + 1
		for page := c.page; ; {
			if err = c.next(); err != nil || !c.ok || c.dec.common < n {
				break
			}
			if c.page != page {
				sub := string(c.dec.key[:n-1]) + "\x00"
				c.done()
				if c, err = p.seek(ix, sub); err == nil {
					c.aim(prefix)
				}
				break
			}
		}
	}
	if c != nil {
		c.done()
	}
	return out, err
}

// indexedFile is a file found through the index: its object as the index
// gives it, and its digest.
type indexedFile struct {
	obj    Object
	sum    uint32
	hasSum bool
}

// lookupIndexed finds name, a valid fs path, through the index: an error
// matching fs.ErrNotExist when the package has no such file or directory,
// one matching errPathIndex when the index proved unusable.
func (p *Package) lookupIndexed(ix *pathIndex, name string) (fsEntry, error) {
	if name == "." {
		return fsEntry{dir: ".", elem: ".", obj: -1}, nil
	}
	e, isDir, found, err := p.indexLookup(ix, name)
	if err != nil {
		return fsEntry{}, err
	}
	dir, elem := split(name)
	switch {
	case isDir:
		return fsEntry{dir: dir, elem: elem, obj: -1}, nil
	case !found:
		return fsEntry{}, fs.ErrNotExist
	}
	if err := p.checkEntry(ix, &e); err != nil {
		return fsEntry{}, err
	}
	return fsEntry{dir: dir, elem: elem, obj: int(e.obj), ix: ix.file(&e)}, nil
}

// file returns the indexedFile of entry e.
func (ix *pathIndex) file(e *pathEntry) *indexedFile {
	return &indexedFile{
		obj: Object{Index: int(e.obj), Name: e.name, Size: e.size, Start: e.start, Offset: e.offset, pos: int(e.start)},
		sum: e.sum, hasSum: ix.hdr.flags&pathIndexDigests != 0,
	}
}

// dropIndex stops using the path index, found unusable: from now on the
// tables answer.
func (p *Package) dropIndex() { p.pidx.Store(nil) }

// openIndexed returns a reader of a file found through the index.
func (p *Package) openIndexed(f *indexedFile) (*ObjectReader, error) {
	segs, err := p.segments(&f.obj)
	if err != nil {
		return nil, err
	}
	r := &ObjectReader{p: p, obj: &f.obj, segs: segs, sum: f.sum, hasSum: f.hasSum}
	if !r.hasSum {
		if sums := p.digests(); f.obj.Index < len(sums) {
			r.sum, r.hasSum = sums[f.obj.Index], true
		}
	}
	r.useChunks()
	return r, nil
}

// readDirIndexed lists directory name through the index, after the entry
// named after, at most limit entries (all if limit <= 0).
func (p *Package) readDirIndexed(ix *pathIndex, name, after string, limit int) ([]fs.DirEntry, error) {
	kids, err := p.indexChildren(ix, name, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(kids))
	for i := range kids {
		k := &kids[i]
		e := fsEntry{dir: name, elem: k.elem, obj: -1}
		if !k.isDir {
			if err := p.checkEntry(ix, &k.e); err != nil {
				return nil, err
			}
			e.obj, e.ix = int(k.e.obj), ix.file(&k.e)
		}
		out[i] = fs.FileInfoToDirEntry(p.info(e))
	}
	return out, nil
}

// checkPathIndex reports a path index in use that differs from the tables:
// a damaged page, or a file the tables do not give (its object, size,
// place or digest), as an error matching bpx.ErrFormat. An index that is
// not used (stale, malformed) is not checked: readers pass over it.
func (p *Package) checkPathIndex() error {
	if err := p.load(); err != nil {
		return err
	}
	ix, err := openPathIndex(p.Reader, p.cfg)
	if err != nil || ix == nil {
		return err
	}
	fail := func(format string, args ...any) error {
		return &bpx.FormatError{Offset: int64(ix.s.Pointer), Section: ix.s.Index,
			What: "path index: " + fmt.Sprintf(format, args...), Err: bpx.ErrFormat}
	}
	files, ok := indexFiles(len(p.objects), func(i int) (string, bool) {
		return p.objects[i].Name, p.objects[i].NameErr == nil
	})
	if !ok {
		return fail("the package has repeated or overlong names, which an index cannot list")
	}
	sums := p.digests()
	c := &pathCursor{p: p, ix: ix}
	defer c.close()
	err = c.load(0, 0)
	for _, f := range files {
		if err != nil {
			break
		}
		if !c.ok {
			return fail("%q is missing", f.name)
		}
		o := &p.objects[f.obj]
		e := &c.e
		switch {
		case e.name != f.name:
			return fail("lists %q where the tables have %q", e.name, f.name)
		case int(e.obj) != o.Index || e.size != o.Size || e.start != o.Start || e.offset != o.Offset:
			return fail("%q: object %d, %d bytes at %d:%d; the tables say object %d, %d bytes at %d:%d",
				f.name, e.obj, e.size, e.start, e.offset, o.Index, o.Size, o.Start, o.Offset)
		case ix.hdr.flags&pathIndexDigests != 0 && sums != nil && e.sum != sums[f.obj]:
			return fail("%q: digest %#08x, SectionDigests %#08x", f.name, e.sum, sums[f.obj])
		}
		err = c.next()
	}
	if err == nil && c.ok {
		return fail("lists %q, which the tables do not", c.e.name)
	}
	if err != nil {
		return fail("%v", err)
	}
	return nil
}
