package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// SectionPathIndex is the type of the section that finds an object by its
// path without the object table and the strings: a package of a million
// objects has 38 MB of those, which a reader would read whole to open one
// file. The Writer and the Editor add it, as the first section, to packages
// whose object table and strings exceed PathIndexThreshold (or as
// WithPathIndex says); other readers, the reference SDK among them, look
// sections up by type and pass over it.
//
// The index lists the files of the package's fs.FS view (every object
// whose name is a valid fs path, less duplicates and files that are also
// directories, as InvalidPaths explains) in ComparePaths order, so that a
// directory's files and subdirectories form one run of entries: a lookup
// finds a file, or a directory as the run its name starts, and a listing
// reads the run. Entries are grouped in pages of about 32 KiB (a writer
// closes a page at the entry that reaches 32 KiB; a reader refuses pages
// of more than 104 KiB, which no writer writes); the root, one key per
// page, follows the header. A lookup reads the header and
// root once (with the section table, within the first request a remote
// reader makes) and then one page: over HTTP, opening a package and
// reading one object by path takes three requests however many objects it
// has.
//
// Layout, little-endian:
//
//	offset size
//	0      1     version: 1
//	1      1     flags: 1 = entries carry the CRC-32C of their object's bytes
//	2      2     reserved, 0
//	4      4     length of the longest path
//	8      8     number of entries
//	16     4     number of pages m
//	20     4     size of the root in bytes
//	24     4     CRC-32C of the root
//	28     4     reserved, 0
//	32     16    the object table the entries were made from: its section
//	             index (u32), decoded size (u32), checksum (u32), checksum
//	             flags (u8: FlagCRC32 or FlagWeak), 3 reserved bytes
//	48     16    the strings section, likewise
//	64     12    reserved, 0
//	76     4     CRC-32C of bytes 0 to 75
//	80           the root: for each page, its size (u32), its CRC-32C (u32),
//	             its number of entries (u32) and its first path (uvarint
//	             length, bytes)
//	             the pages, one after another
//
// A page holds its entries, then the offset (u32) of every 16th entry
// from the first, then their count (u32). An entry is: the length of the
// prefix it shares with the previous entry's path (uvarint, 0 for every
// 16th), the length of the rest (uvarint), the rest, then the object's
// index in the object table, size, start section and offset (uvarints, as
// in the object table) and, with flag 1, its CRC-32C (u32).
//
// The index counts only for the tables it names: a tool that edits the
// package without knowing this section (and copies it as it is) changes
// the object table or the strings, and readers then find their objects
// through the tables, as for a package without an index. So does an index
// that is malformed or whose page fails its CRC-32C, and one over
// compressed tables. The writer stores the two tables raw with CRC32
// checksums, so that an edit that only reorders their bytes changes them
// too. The tables stay the authority: every entry is checked against the
// table row of the object it names (size, start, offset and name) before
// it is used, and an index whose entry differs is dropped there, so that a
// path never reads other bytes through the index than through the tables
// (see the package documentation's Accelerators).
const SectionPathIndex = 0xF2

// PathIndexThreshold is the size of the object table and strings above
// which the Writer and the Editor add a path index by default: smaller
// tables, compressed (unless WithRawTables), come within the first
// request of a remote reader (see remote.DefaultHeadSize) for most
// packages, and are read in a few milliseconds.
const PathIndexThreshold = 1 << 20

const (
	pathIndexVersion    = 1
	pathIndexHeaderSize = 80
	pathIndexDigests    = 1 // flag: entries carry a CRC-32C

	pathRestart     = 16       // entries between full paths
	pathPageSize    = 32 << 10 // the size at which a writer closes a page
	maxPathIndexKey = 1 << 16  // the longest path an index may hold
	maxPathRoot     = 16 << 20 // the largest root a reader reads
	noTable         = ^uint32(0)

	// maxPathPage is the largest page a reader reads: the largest a
	// writer writes, which closes a page at the entry that takes it to
	// pathPageSize bytes (that entry is at most a path and 44 bytes), and
	// adds 4 bytes for every 16th of its entries (of at least 6 bytes
	// each) and 4. A larger page is no writer's: the index is not used. A
	// lookup that loads a page then reads, checks and decodes at most
	// this many bytes, whoever wrote the index.
	maxPathPage = pathPageSize + maxPathIndexKey + 8<<10
)

// pathPageTarget is the size at which a writer closes a page (a variable
// for tests and fuzzing, which want many small pages).
var pathPageTarget = pathPageSize

// pathPageEntries, when positive, makes a writer close a page at that many
// entries, whatever its size (for the tests of hostile indexes).
var pathPageEntries = 0

// pathIndexCRC turns the index's CRC-32C checks off (false) for fuzzing.
var pathIndexCRC = true

// errPathIndex marks an index that cannot be used (see SectionPathIndex):
// it never reaches a caller, who reads through the tables instead.
var errPathIndex = errors.New("pack: unusable path index")

func pathIndexError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errPathIndex, fmt.Sprintf(format, args...))
}

// tableBinding names the table section an index was made from.
type tableBinding struct {
	index    uint32 // section-table index, noTable if none
	usize    uint32
	checksum uint32
	kind     uint8 // the section's flags & (FlagCRC32|FlagWeak)
}

// bindingOf returns the binding of section s (nil: none).
func bindingOf(s *bpx.Section) tableBinding {
	if s == nil {
		return tableBinding{index: noTable}
	}
	return tableBinding{uint32(s.Index), s.USize, s.Checksum, s.Flags & (bpx.FlagCRC32 | bpx.FlagWeak)}
}

func (b tableBinding) put(dst []byte) {
	binary.LittleEndian.PutUint32(dst, b.index)
	binary.LittleEndian.PutUint32(dst[4:], b.usize)
	binary.LittleEndian.PutUint32(dst[8:], b.checksum)
	dst[12] = b.kind
}

func getBinding(src []byte) (tableBinding, bool) {
	b := tableBinding{binary.LittleEndian.Uint32(src), binary.LittleEndian.Uint32(src[4:]), binary.LittleEndian.Uint32(src[8:]), src[12]}
	return b, src[13]|src[14]|src[15] == 0
}

// pathIndexHeader is the decoded header of a path index.
type pathIndexHeader struct {
	flags    uint8
	longest  uint32
	entries  uint64
	pages    uint32
	rootSize uint32
	rootSum  uint32
	table    tableBinding
	names    tableBinding
}

func (h *pathIndexHeader) marshal() []byte {
	b := make([]byte, pathIndexHeaderSize)
	b[0], b[1] = pathIndexVersion, h.flags
	binary.LittleEndian.PutUint32(b[4:], h.longest)
	binary.LittleEndian.PutUint64(b[8:], h.entries)
	binary.LittleEndian.PutUint32(b[16:], h.pages)
	binary.LittleEndian.PutUint32(b[20:], h.rootSize)
	binary.LittleEndian.PutUint32(b[24:], h.rootSum)
	h.table.put(b[32:])
	h.names.put(b[48:])
	binary.LittleEndian.PutUint32(b[76:], objectDigest(b[:76]))
	return b
}

func parsePathIndexHeader(b []byte) (pathIndexHeader, error) {
	var h pathIndexHeader
	if len(b) < pathIndexHeaderSize {
		return h, pathIndexError("%d bytes, shorter than its header", len(b))
	}
	if got, want := objectDigest(b[:76]), binary.LittleEndian.Uint32(b[76:]); got != want && pathIndexCRC {
		return h, pathIndexError("header CRC-32C %#08x, stored %#08x", got, want)
	}
	if b[0] != pathIndexVersion || b[1]&^pathIndexDigests != 0 {
		return h, pathIndexError("version %d, flags %#x", b[0], b[1])
	}
	h.flags = b[1]
	h.longest = binary.LittleEndian.Uint32(b[4:])
	h.entries = binary.LittleEndian.Uint64(b[8:])
	h.pages = binary.LittleEndian.Uint32(b[16:])
	h.rootSize = binary.LittleEndian.Uint32(b[20:])
	h.rootSum = binary.LittleEndian.Uint32(b[24:])
	var ok1, ok2 bool
	h.table, ok1 = getBinding(b[32:])
	h.names, ok2 = getBinding(b[48:])
	if !ok1 || !ok2 || b[2]|b[3] != 0 || binary.LittleEndian.Uint32(b[28:]) != 0 || !allZero(b[64:76]) {
		return h, pathIndexError("reserved bytes set")
	}
	if h.longest > maxPathIndexKey {
		return h, pathIndexError("paths of %d bytes", h.longest)
	}
	return h, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// pathPage is a page as the root describes it.
type pathPage struct {
	off     uint64 // from the start of the section
	size    uint32
	sum     uint32
	entries uint32
	shared  uint32 // how long a prefix first shares with the page before's
	first   string
}

// parsePathRoot decodes the root of an index whose section is secSize
// bytes: every page must lie within the section, after the root, in
// order, with strictly increasing first paths and the entry counts adding
// up to the header's.
func parsePathRoot(h *pathIndexHeader, root []byte, secSize uint64) ([]pathPage, error) {
	if got := objectDigest(root); got != h.rootSum && pathIndexCRC {
		return nil, pathIndexError("root CRC-32C %#08x, stored %#08x", got, h.rootSum)
	}
	// A page entry takes at least 13 bytes: a bound before allocating.
	if uint64(h.pages) > uint64(len(root))/13 {
		return nil, pathIndexError("%d pages in a root of %d bytes", h.pages, len(root))
	}
	pages := make([]pathPage, h.pages)
	off := uint64(pathIndexHeaderSize) + uint64(len(root))
	var total uint64
	b := root
	for i := range pages {
		if len(b) < 12 {
			return nil, pathIndexError("root cut short at page %d", i)
		}
		pg := &pages[i]
		pg.off = off
		pg.size = binary.LittleEndian.Uint32(b)
		pg.sum = binary.LittleEndian.Uint32(b[4:])
		pg.entries = binary.LittleEndian.Uint32(b[8:])
		n, k := binary.Uvarint(b[12:])
		if k <= 0 || n == 0 || n > uint64(h.longest) || n > uint64(len(b)-12-k) {
			return nil, pathIndexError("root: bad first path of page %d", i)
		}
		pg.first = string(b[12+k : 12+k+int(n)])
		b = b[12+k+int(n):]
		if pg.size > maxPathPage || pg.entries == 0 || uint64(pg.entries) > uint64(pg.size)/6 {
			return nil, pathIndexError("page %d: %d entries in %d bytes", i, pg.entries, pg.size)
		}
		if i > 0 {
			prev := pages[i-1].first
			pg.shared = uint32(commonPrefix(prev, pg.first))
			if pathGE(prev, pg.first, int(pg.shared)) {
				return nil, pathIndexError("page %d is out of order", i)
			}
		}
		off += uint64(pg.size)
		total += uint64(pg.entries)
	}
	if len(b) != 0 || off > secSize || total != h.entries {
		return nil, pathIndexError("root does not match the section (%d bytes left, pages end at %d of %d, %d of %d entries)", len(b), off, secSize, total, h.entries)
	}
	return pages, nil
}

// pathEntry is one file of a path index.
type pathEntry struct {
	name          string
	obj           uint32
	size          uint64
	start, offset uint32
	sum           uint32
}

// pathIndexWriter builds an index from its entries, given in ComparePaths
// order.
type pathIndexWriter struct {
	digests bool
	pages   []byte // the pages closed so far
	root    []byte
	npages  uint32
	entries uint64
	longest int

	page      []byte // the page being filled
	restarts  []uint32
	n         uint32 // its entries
	rootStart int    // its entry in root
	prev      string
}

func (w *pathIndexWriter) add(e *pathEntry) {
	if w.n%pathRestart == 0 {
		w.restarts = append(w.restarts, uint32(len(w.page)))
		w.prev = ""
	}
	if w.n == 0 {
		w.rootStart = len(w.root)
		w.root = append(w.root, make([]byte, 12)...) // size, CRC-32C, entries: set by flush
		w.root = binary.AppendUvarint(w.root, uint64(len(e.name)))
		w.root = append(w.root, e.name...)
	}
	shared := 0
	for shared < len(w.prev) && shared < len(e.name) && w.prev[shared] == e.name[shared] {
		shared++
	}
	w.page = binary.AppendUvarint(w.page, uint64(shared))
	w.page = binary.AppendUvarint(w.page, uint64(len(e.name)-shared))
	w.page = append(w.page, e.name[shared:]...)
	w.page = binary.AppendUvarint(w.page, uint64(e.obj))
	w.page = binary.AppendUvarint(w.page, e.size)
	w.page = binary.AppendUvarint(w.page, uint64(e.start))
	w.page = binary.AppendUvarint(w.page, uint64(e.offset))
	if w.digests {
		w.page = binary.LittleEndian.AppendUint32(w.page, e.sum)
	}
	w.prev = e.name
	w.longest = max(w.longest, len(e.name))
	w.n++
	w.entries++
	if len(w.page) >= pathPageTarget || pathPageEntries > 0 && int(w.n) >= pathPageEntries {
		w.flush()
	}
}

// flush closes the page being filled.
func (w *pathIndexWriter) flush() {
	if w.n == 0 {
		return
	}
	for _, r := range w.restarts {
		w.page = binary.LittleEndian.AppendUint32(w.page, r)
	}
	w.page = binary.LittleEndian.AppendUint32(w.page, uint32(len(w.restarts)))
	binary.LittleEndian.PutUint32(w.root[w.rootStart:], uint32(len(w.page)))
	binary.LittleEndian.PutUint32(w.root[w.rootStart+4:], objectDigest(w.page))
	binary.LittleEndian.PutUint32(w.root[w.rootStart+8:], w.n)
	w.pages = append(w.pages, w.page...)
	w.page, w.restarts, w.n, w.prev = w.page[:0], w.restarts[:0], 0, ""
	w.npages++
}

// finish returns the section's bytes, bound to the tables table and names.
func (w *pathIndexWriter) finish(table, names tableBinding) []byte {
	w.flush()
	h := pathIndexHeader{longest: uint32(w.longest), entries: w.entries, pages: w.npages,
		rootSize: uint32(len(w.root)), rootSum: objectDigest(w.root), table: table, names: names}
	if w.digests {
		h.flags = pathIndexDigests
	}
	out := make([]byte, 0, pathIndexHeaderSize+len(w.root)+len(w.pages))
	out = append(out, h.marshal()...)
	out = append(out, w.root...)
	return append(out, w.pages...)
}

// pathPageData is a page read and checked whole (checkPage): its entries,
// and where every 16th starts.
type pathPageData struct {
	entries []byte
	rtab    []byte // the offsets of every 16th entry (u32 each)
	n       int    // entries
}

// pageView returns the parts of page pg, read whole into b, whose trailer
// checkPage has checked.
func pageView(b []byte, pg *pathPage) pathPageData {
	end := len(b) - 4 - 4*int(binary.LittleEndian.Uint32(b[len(b)-4:]))
	return pathPageData{entries: b[:end], rtab: b[end : len(b)-4], n: int(pg.entries)}
}

func (pd *pathPageData) nrestarts() int    { return len(pd.rtab) / 4 }
func (pd *pathPageData) restart(r int) int { return int(binary.LittleEndian.Uint32(pd.rtab[4*r:])) }

// restartKey returns the path of the entry at restart point r, a whole
// path in the page's bytes (checkPage checked that it decodes).
func (pd *pathPageData) restartKey(r int) []byte {
	b := pd.entries[pd.restart(r):]
	_, k := binary.Uvarint(b) // its shared length, 0
	n, k2 := binary.Uvarint(b[k:])
	return b[k+k2:][:n]
}

// entryDecoder reads the entries of a page one after another.
type entryDecoder struct {
	b       []byte
	pos     int
	key     []byte // the path of the last entry read
	digests bool

	// Of the last entry read, against the path before it (the key it
	// replaced): the prefix it declares shared, the one it really
	// shares (at least that), and whether it comes after it and not below
	// it (pathAfter). Each costs at most the bytes of the entry.
	shared, common int
	follows        bool
}

// next decodes the entry at d.pos into e, and its path into d.key (not
// into e.name, left empty: a path may be 64 KiB), checking only that its
// fields are in range; a restart entry (every 16th) must share nothing
// with the one before.
func (d *entryDecoder) next(e *pathEntry, longest uint32, restart bool) error {
	b := d.b[d.pos:]
	shared, k := binary.Uvarint(b)
	if k <= 0 || shared > uint64(len(d.key)) || restart && shared != 0 {
		return pathIndexError("bad shared length at byte %d of a page", d.pos)
	}
	b = b[k:]
	rest, k := binary.Uvarint(b)
	if k <= 0 || rest > uint64(len(b)-k) || shared+rest > uint64(longest) || shared+rest == 0 {
		return pathIndexError("bad path length at byte %d of a page", d.pos)
	}
	s, r := int(shared), b[k:k+int(rest)]
	prev := d.key[s:] // the path before, past what both share
	l := commonPrefix(prev, r)
	d.shared, d.common, d.follows = s, s+l, pathAfterFrom(prev, r, l)
	d.key = append(d.key[:s], r...)
	b = b[k+int(rest):]
	var v [4]uint64
	for i := range v {
		x, k := binary.Uvarint(b)
		if k <= 0 {
			return pathIndexError("bad entry at byte %d of a page", d.pos)
		}
		v[i] = x
		b = b[k:]
	}
	if v[0] > uint64(^uint32(0)) || v[2] > uint64(^uint32(0)) || v[3] > uint64(^uint32(0)) {
		return pathIndexError("entry field out of range at byte %d of a page", d.pos)
	}
	e.name, e.obj, e.size, e.start, e.offset, e.sum = "", uint32(v[0]), v[1], uint32(v[2]), uint32(v[3]), 0
	if d.digests {
		if len(b) < 4 {
			return pathIndexError("entry cut short at byte %d of a page", d.pos)
		}
		e.sum = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	d.pos = len(d.b) - len(b)
	return nil
}

// checkPage checks page i of an index whose table holds nobj objects,
// read whole into b: its CRC-32C, and that its entries decode to exactly
// the page, each a valid path strictly after the one before in
// ComparePaths order (the first the root's, the last before the next
// page's first), none a directory of the next, each naming an object of
// the table; the offsets of every 16th entry must be where they start.
// It costs time in proportion to the page's bytes and the two first paths,
// however long the paths its entries make.
func checkPage(h *pathIndexHeader, pages []pathPage, i int, b []byte, nobj uint64) error {
	pg := &pages[i]
	if got := objectDigest(b); got != pg.sum && pathIndexCRC {
		return pathIndexError("page %d: CRC-32C %#08x, stored %#08x", i, got, pg.sum)
	}
	if len(b) < 4 {
		return pathIndexError("page %d: %d bytes", i, len(b))
	}
	nr := binary.LittleEndian.Uint32(b[len(b)-4:])
	want := (pg.entries + pathRestart - 1) / pathRestart
	if nr != want || uint64(nr)*4+4 > uint64(len(b)) {
		return pathIndexError("page %d: %d restart points for %d entries", i, nr, pg.entries)
	}
	pd := pageView(b, pg)
	d := entryDecoder{b: pd.entries, digests: h.flags&pathIndexDigests != 0}
	var e pathEntry
	var v pathChecker
	for j := 0; j < pd.n; j++ {
		if d.pos >= len(d.b) {
			return pathIndexError("page %d ends after %d of %d entries", i, j, pd.n)
		}
		restart := j%pathRestart == 0
		if restart && d.pos != pd.restart(j/pathRestart) {
			return pathIndexError("page %d: restart point %d is wrong", i, j/pathRestart)
		}
		if err := d.next(&e, h.longest, restart); err != nil {
			return fmt.Errorf("%w (page %d)", err, i)
		}
		switch {
		case j == 0 && string(d.key) != pg.first:
			return pathIndexError("page %d starts with another path than the root says", i)
		case !v.valid(d.key, d.shared):
			return pathIndexError("page %d: entry %d is not a valid path", i, j)
		case j > 0 && !d.follows:
			return pathIndexError("page %d: entry %d is out of order or below a file", i, j)
		case uint64(e.obj) >= nobj:
			return pathIndexError("page %d: object %d of %d", i, e.obj, nobj)
		}
	}
	if d.pos != len(d.b) {
		return pathIndexError("page %d: %d bytes after its entries", i, len(d.b)-d.pos)
	}
	if i+1 < len(pages) && !pathAfter(d.key, pages[i+1].first) {
		return pathIndexError("page %d ends after the next page starts", i)
	}
	return nil
}

// validFile reports whether name may be a file of the fs.FS view.
func validFile(name string) bool { return name != "." && validPath(name) }

// pathChecker tells whether the paths of a page's entries, one after
// another, are valid files (validFile), looking at the bytes an entry
// adds and a few before them only: what its path shares with the one
// before was checked with that one.
type pathChecker struct {
	slashes []int32 // where the last path checked has a '/', in order
}

// valid reports whether key, the path of the next entry, which shares its
// first shared bytes with the last path checked (valid), is a valid file.
func (v *pathChecker) valid(key []byte, shared int) bool {
	// key[:shared] is valid UTF-8 up to its last rune, which may go on in
	// the rest: check from its start.
	u := shared
	for u > 0 && shared-u < utf8.UTFMax {
		if u--; utf8.RuneStart(key[u]) {
			break
		}
	}
	if !utf8.Valid(key[u:]) {
		return false
	}
	// Its elements before its last '/' in key[:shared] are the last path's;
	// check the one that '/' starts (or the first) and the rest's.
	n := len(v.slashes)
	for n > 0 && int(v.slashes[n-1]) >= shared {
		n--
	}
	v.slashes = v.slashes[:n]
	start := 0
	if n > 0 {
		start = int(v.slashes[n-1]) + 1
	}
	return validElems(key, start, shared, &v.slashes)
}

// validPath is fs.ValidPath, looking for the '/' that ends an element at
// IndexByte's speed (indexSlash): 4 us for a path of 64 KiB, where
// fs.ValidPath takes 80, and no slower for short elements.
func validPath(name string) bool {
	return name == "." || utf8.ValidString(name) && validElems(name, 0, 0, nil)
}

// validElems reports whether the elements of path p from the one at start
// on are neither "", "." nor "..", given that p[start:from] holds no '/'.
// It appends where each '/' it finds is to *slashes, unless nil.
func validElems[P string | []byte](p P, start, from int, slashes *[]int32) bool {
	for j := from; ; {
		end := len(p)
		k := indexSlash(p[j:])
		if k >= 0 {
			end = j + k
		}
		if e := p[start:end]; len(e) == 0 || len(e) <= 2 && e[0] == '.' && (len(e) == 1 || e[1] == '.') {
			return false
		}
		if k < 0 {
			return true
		}
		if slashes != nil {
			*slashes = append(*slashes, int32(end))
		}
		start, j = end+1, end+1
	}
}

// indexSlash returns the index of the first '/' in s, or -1: in its
// first 16 bytes a word at a time (an element is short, mostly, and
// IndexByte's call costs more), then at IndexByte's speed.
func indexSlash[S string | []byte](s S) int {
	const ones, highs, slashes = 0x0101010101010101, 0x8080808080808080, 0x2f2f2f2f2f2f2f2f
	i := 0
	for ; i < 16 && i+8 <= len(s); i += 8 {
		// The bytes of x that are 0, where s has a '/', and maybe bytes
		// after them: the lowest is the first.
		x := load64(s, i) ^ slashes
		if z := (x - ones) &^ x & highs; z != 0 {
			return i + bits.TrailingZeros64(z)/8
		}
	}
	var k int
	switch s := any(s[i:]).(type) {
	case string:
		k = strings.IndexByte(s, '/')
	case []byte:
		k = bytes.IndexByte(s, '/')
	}
	if k < 0 {
		return -1
	}
	return i + k
}

// commonPrefix returns the length of the longest prefix a and b share, a
// word at a time (the paths of an index may share 64 KiB).
func commonPrefix[A, B string | []byte](a A, b B) int {
	n := min(len(a), len(b))
	i := 0
	for i+256 <= n && string(a[i:i+256]) == string(b[i:i+256]) {
		i += 256
	}
	for ; i+8 <= n; i += 8 {
		if x := load64(a, i) ^ load64(b, i); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// load64 returns the 8 bytes of s at i, little-endian.
func load64[S string | []byte](s S, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// pathAfter reports whether b may follow a in an index: after it in
// ComparePaths order, and not below it (a is a file).
func pathAfter[A, B string | []byte](a A, b B) bool { return pathAfterFrom(a, b, commonPrefix(a, b)) }

// pathAfterFrom is pathAfter for a and b that share their first l bytes
// and no more.
func pathAfterFrom[A, B string | []byte](a A, b B, l int) bool {
	switch {
	case l == len(b):
		return false // b is a or a prefix of it
	case l == len(a):
		return b[l] != '/' // after a; below it if a '/' follows
	}
	return a[l] == '/' || b[l] != '/' && b[l] > a[l]
}

// pathGE reports whether path k is at or after path t in ComparePaths
// order, given that they share their first l bytes and no more.
func pathGE[K string | []byte](k K, t string, l int) bool {
	switch {
	case l == len(t):
		return true
	case l == len(k):
		return false
	}
	return t[l] == '/' || k[l] != '/' && k[l] > t[l]
}

// indexFile is a file of the fs.FS view, for makePathIndex.
type indexFile struct {
	name string
	obj  uint32
}

// indexFiles returns the files of the fs.FS view of a package of n
// objects, object i named name(i) (ok false: no readable name), in
// ComparePaths order: the valid paths that nothing lies below (a file
// that is also a directory is not a file of the view), as buildIndex finds
// them. A name that repeats gives none (ok false): buildIndex keeps the
// directories of repeated files, which an index cannot show; so does a
// path longer than an index holds (64 KiB).
func indexFiles(n int, name func(i int) (string, bool)) ([]indexFile, bool) {
	files := make([]indexFile, 0, n)
	for i := range n {
		if s, ok := name(i); ok && validFile(s) {
			if len(s) > maxPathIndexKey {
				return nil, false
			}
			files = append(files, indexFile{s, uint32(i)})
		}
	}
	cmp := func(a, b indexFile) int { return cmpPath(a.name, b.name) }
	if !slices.IsSortedFunc(files, cmp) {
		slices.SortStableFunc(files, cmp)
	}
	out := files[:0]
	for k, f := range files {
		if k+1 < len(files) {
			switch next := files[k+1].name; {
			case next == f.name:
				return nil, false
			case below(next, f.name):
				continue
			}
		}
		out = append(out, f)
	}
	return out, true
}

// tableNames returns the name function of indexFiles for an object table
// and its strings.
func tableNames(table, names []byte) func(int) (string, bool) {
	strs := bpxstrings.NewTable(names)
	return func(i int) (string, bool) {
		s, err := strs.Get(binary.LittleEndian.Uint32(table[i*ObjectEntrySize+8:]))
		return s, err == nil
	}
}

// makePathIndex returns the path index of files (see indexFiles) of the
// package whose object table is table and strings names (the sections at
// indexes 1 and 2, stored with the checksum kind ck), whose objects'
// digests are sums (nil: none).
func makePathIndex(files []indexFile, table, names []byte, sums []uint32, ck bpx.Checksum) []byte {
	// At most the names and 24 bytes an entry: reserved, not touched, so
	// that the pages are not copied as they grow.
	w := pathIndexWriter{digests: sums != nil, pages: make([]byte, 0, len(names)+24*len(files))}
	for _, f := range files {
		e := table[int(f.obj)*ObjectEntrySize:]
		pe := pathEntry{name: f.name, obj: f.obj, size: binary.LittleEndian.Uint64(e),
			start: binary.LittleEndian.Uint32(e[12:]), offset: binary.LittleEndian.Uint32(e[16:])}
		if sums != nil {
			pe.sum = sums[f.obj]
		}
		w.add(&pe)
	}
	return w.finish(bindTable(1, table, ck), bindTable(2, names, ck))
}

// bindTable returns the binding of a table section at index i holding b,
// stored with checksum kind ck (bpx.ChecksumNone binds no checksum).
func bindTable(i uint32, b []byte, ck bpx.Checksum) tableBinding {
	t := tableBinding{index: i, usize: uint32(len(b))}
	switch ck {
	case bpx.ChecksumWeak:
		t.kind, t.checksum = bpx.FlagWeak, bpx.WeakChecksum(0, b)
	case bpx.ChecksumCRC32:
		t.kind, t.checksum = bpx.FlagCRC32, bpx.ReferenceCRC32(b)
	case bpx.ChecksumStandardCRC32:
		t.kind, t.checksum = bpx.FlagCRC32, bpx.StandardCRC32(b)
	}
	return t
}
