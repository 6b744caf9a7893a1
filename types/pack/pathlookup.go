package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"

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
	if cfg.skipNames || rd.Header.Version != 2 {
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

// pathCursor walks the entries of an index in order.
type pathCursor struct {
	p    *Package
	ix   *pathIndex
	page int // the page of the entry at hand
	pd   pathPageData
	dec  entryDecoder
	i    int       // the number of the entry at hand in its page
	e    pathEntry // the entry at hand
	ok   bool      // there is an entry at hand (false: past the last)
	pin  *centry   // the cache entry of the page
}

// close releases the cursor's page.
func (c *pathCursor) close() {
	if c.pin != nil {
		c.p.cache.release(c.pin)
		c.pin = nil
	}
}

// seek returns a cursor at the first entry whose path satisfies pred,
// which must be false for the paths before some point of the index's order
// and true from there on.
func (p *Package) seek(ix *pathIndex, pred func(string) bool) (*pathCursor, error) {
	c := &pathCursor{p: p, ix: ix}
	j := sort.Search(len(ix.pages), func(i int) bool { return pred(ix.pages[i].first) })
	if j == 0 {
		if err := c.load(0, 0); err != nil {
			c.close()
			return nil, err
		}
		return c, nil
	}
	// The entry is in page j-1, or else the first of page j.
	if err := c.load(j-1, 0); err != nil {
		c.close()
		return nil, err
	}
	r := sort.Search(c.pd.nrestarts(), func(r int) bool {
		d := entryDecoder{b: c.pd.entries, pos: c.pd.restart(r), digests: c.dec.digests}
		var e pathEntry
		return d.next(&e, ix.hdr.longest) == nil && pred(e.name)
	})
	if r > 1 {
		c.at(r - 1)
	}
	for c.ok && c.page == j-1 && !pred(c.e.name) {
		if err := c.next(); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// at moves the cursor to restart point r of its page.
func (c *pathCursor) at(r int) {
	c.dec.pos, c.i = c.pd.restart(r), r*pathRestart
	c.decode()
}

// load puts the cursor at restart point r of page i (past the end when
// there is no page i).
func (c *pathCursor) load(i, r int) error {
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
	c.at(r)
	return nil
}

// decode reads the entry at the decoder's position, which checkPage
// decoded already.
func (c *pathCursor) decode() {
	if c.i%pathRestart == 0 {
		c.dec.key = c.dec.key[:0]
	}
	c.ok = c.dec.next(&c.e, c.ix.hdr.longest) == nil
}

// next moves the cursor to the next entry.
func (c *pathCursor) next() error {
	if !c.ok {
		return nil
	}
	c.i++
	if c.i < c.pd.n {
		c.decode()
		return nil
	}
	return c.load(c.page+1, 0)
}

// indexLookup finds name, a valid fs path other than ".", in the index: a
// file (its entry), a directory (the run of paths below it), or neither.
func (p *Package) indexLookup(ix *pathIndex, name string) (e pathEntry, isDir, found bool, err error) {
	c, err := p.seek(ix, func(k string) bool { return cmpPath(k, name) >= 0 })
	if err != nil {
		return e, false, false, err
	}
	defer c.close()
	if !c.ok {
		return e, false, false, nil
	}
	if c.e.name == name {
		return c.e, false, true, nil
	}
	return e, below(c.e.name, name), false, nil
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
// paths, unless that run ends in the page at hand.
func (p *Package) indexChildren(ix *pathIndex, dir, after string, limit int) ([]indexChild, error) {
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	past := func(sub string) func(string) bool {
		return func(k string) bool { return cmpPath(k, sub) > 0 && !below(k, sub) }
	}
	var c *pathCursor
	var err error
	switch {
	case after != "":
		c, err = p.seek(ix, past(prefix+after))
	case dir == ".":
		c = &pathCursor{p: p, ix: ix}
		if err = c.load(0, 0); err != nil {
			c.close()
			c = nil
		}
	default:
		c, err = p.seek(ix, func(k string) bool { return cmpPath(k, dir) > 0 })
	}
	var out []indexChild
	for err == nil && c.ok && strings.HasPrefix(c.e.name, prefix) && (limit <= 0 || len(out) < limit) {
		rest := c.e.name[len(prefix):]
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			out = append(out, indexChild{elem: rest, e: c.e})
			err = c.next()
			continue
		}
		sub := c.e.name[:len(prefix)+i]
		out = append(out, indexChild{elem: rest[:i], isDir: true})
		// Skip the subdirectory's run: within the page, else by a seek.
		for page := c.page; err == nil && c.ok && c.page == page && below(c.e.name, sub); {
			err = c.next()
		}
		if err == nil && c.ok && below(c.e.name, sub) {
			c.close()
			c, err = p.seek(ix, past(sub))
		}
	}
	if c != nil {
		c.close()
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
