package pack

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/gobpx/bpx"
)

// segment is the part of an object stored in one section.
type segment struct {
	sec   int    // section-table index
	off   uint64 // offset in the section's uncompressed bytes
	n     uint64 // bytes of the object in this section
	start uint64 // offset of these bytes in the object
	mode  accessMode
}

type accessMode uint8

const (
	accessDirect accessMode = iota // raw section read in place with ReadAt
	accessCached                   // whole section decoded (and verified) through the cache
	accessStream                   // too large to cache: decoded sequentially
)

// segments locates the bytes of o: from (Start, Offset) onward, continuing
// at offset 0 of the following sections (the following data sections for
// revision 1) until Size bytes are found. Every section must be a data
// section; anything out of range is an *ObjectError matching ErrObjectRange.
func (p *Package) segments(o *Object) ([]segment, error) {
	var segs []segment
	err := p.walkSegments(o, func(sg segment) error {
		segs = append(segs, sg)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return segs, nil
}

// walkSegments calls f with each segment of o in order, as segments
// returns them, without keeping them: an object may span every section, so
// checking many objects must not hold objects × sections segments. It
// stops at the first error, its own or f's.
func (p *Package) walkSegments(o *Object, f func(segment) error) error {
	if err := p.objErr[o.Index]; err != nil {
		return err
	}
	pos, off, rem := o.pos, uint64(o.Offset), o.Size
	chainLen := len(p.Reader.Sections)
	if p.chain != nil {
		chainLen = len(p.chain)
	}
	for rem > 0 {
		if pos < 0 || pos >= chainLen {
			what := fmt.Sprintf("start section %d does not exist (%d sections)", o.Start, len(p.Reader.Sections))
			if rem != o.Size || pos != o.pos {
				what = fmt.Sprintf("data ends %d bytes short of the object's size %d", rem, o.Size)
			}
			return p.objectError(o, what, ErrObjectRange)
		}
		sec := pos
		if p.chain != nil {
			sec = p.chain[pos]
		}
		s := p.Reader.Sections[sec]
		if s.Type != p.dataTyp {
			return p.objectError(o, fmt.Sprintf("data continues into section %d of type %d, not a data section", sec, s.Type), ErrObjectRange)
		}
		size := p.secSize[sec]
		if off > size {
			return p.objectError(o, fmt.Sprintf("offset %d is beyond the end of section %d (%d bytes)", off, sec, size), ErrObjectRange)
		}
		if n := min(rem, size-off); n > 0 {
			if err := f(segment{sec: sec, off: off, n: n, start: o.Size - rem, mode: p.accessMode(s)}); err != nil {
				return err
			}
			rem -= n
		}
		pos++
		off = 0
	}
	return nil
}

func (p *Package) objectError(o *Object, what string, err error) error {
	return &ObjectError{Index: o.Index, Name: o.Name, What: what, Err: err}
}

func (p *Package) accessMode(s *bpx.Section) accessMode {
	size := int64(p.secSize[s.Index])
	if !s.Compressed() {
		if size > p.cache.maxEntry() {
			return accessDirect
		}
		return accessCached // read (and verified) once, then served from memory
	}
	if size > p.cache.maxEntry() || (p.Revision == 0 && s.USize == 0 && size == 0) {
		return accessStream
	}
	return accessCached
}

// nextAhead is the cache's read-ahead choice: the data section that
// follows sec in data order (table order, as the writer fills them), if it
// is read whole through the cache, with its size and loader; else -1.
func (p *Package) nextAhead(sec int) (int, int64, loader) {
	n := p.nextData[sec]
	if n < 0 {
		return -1, 0, nil
	}
	s := p.Reader.Sections[n]
	if p.secSize[n] == 0 || p.accessMode(s) != accessCached {
		return -1, 0, nil
	}
	return int(n), int64(p.secSize[n]), s.AppendData
}

// ObjectReader reads one object. It implements io.Reader, io.Seeker,
// io.ReaderAt and io.Closer. ReadAt may be called concurrently; Read and
// Seek share a position and must not be.
//
// Every byte it returns was verified first (see Verification in the
// package documentation). Bytes of sections up to a quarter of the cache
// size come from the Package's section cache, so each section is read,
// decompressed and verified once for all objects in it. Of a section too
// large for the cache, an object that can be checked on its own and fits
// a quarter of the cache is read whole into the cache; otherwise the
// section is decoded sequentially: reading backwards in it restarts the
// decoder.
//
// Reading sections in order, a Package decodes the next sections in the
// background: once readers have needed two sections in a row that each
// follow the one decoded before, the sections after the one they need are
// decoded meanwhile, up to GOMAXPROCS at a time, and the first read of
// each starts the next, so readers in order (one, or several taking
// objects in turn) keep every core decoding while they copy. Read-aheads
// are for sections read through the cache, within its budget (they never
// evict a section in use); their errors reach only a reader of that
// section. Reads in random order start none. Package.Close waits for
// them; Unpack does not read ahead, its workers already decode sections
// side by side.
type ObjectReader struct {
	p    *Package
	obj  *Object
	segs []segment
	pos  int64

	closed  atomic.Bool
	noAhead bool           // no read-ahead of the next section (Unpack)
	whole   bool           // decode whole sections, never in steps (Unpack)
	mu      sync.Mutex     // guards st
	st      *sectionStream // decoder of a streamed section

	// The CRC-32C the object's bytes are checked against when it is read
	// by itself (hasSum): an index entry's own (so that reading it needs
	// neither the object table nor SectionDigests), else SectionDigests'.
	sum    uint32
	hasSum bool

	// The chunk digests it is read with, if any (see useChunks), in
	// place in SectionStreamDigests, and the log2 of the chunk size.
	csums []byte
	clog  uint8
}

// OpenObject returns a reader of the object at index i of Objects, whatever
// its name. Its data is located first: an object whose Start, Offset or Size
// leads outside the data sections fails here with ErrObjectRange.
func (p *Package) OpenObject(i int) (*ObjectReader, error) {
	if err := p.load(); err != nil {
		return nil, err
	}
	if i < 0 || i >= len(p.objects) {
		return nil, fmt.Errorf("pack: object index %d out of range [0, %d)", i, len(p.objects))
	}
	o := &p.objects[i]
	segs, err := p.segments(o)
	if err != nil {
		return nil, err
	}
	r := &ObjectReader{p: p, obj: o, segs: segs}
	if sums := p.digests(); sums != nil {
		r.sum, r.hasSum = sums[i], true
	}
	r.useChunks()
	return r, nil
}

// Object returns the table entry of the object being read.
func (r *ObjectReader) Object() *Object { return r.obj }

// Size returns the object's size.
func (r *ObjectReader) Size() int64 { return int64(r.obj.Size) }

// Read reads the next bytes of the object.
func (r *ObjectReader) Read(b []byte) (int, error) {
	if r.pos >= r.Size() {
		if r.closed.Load() {
			return 0, errClosed
		}
		return 0, io.EOF
	}
	n, err := r.ReadAt(b, r.pos)
	r.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Seek sets the position of the next Read, as io.Seeker describes.
func (r *ObjectReader) Seek(offset int64, whence int) (int64, error) {
	if r.closed.Load() {
		return 0, errClosed
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.Size()
	default:
		return 0, errors.New("pack: Seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("pack: Seek: negative position")
	}
	r.pos = offset
	return offset, nil
}

// ReadAt reads len(b) bytes of the object from offset off, as io.ReaderAt
// describes.
func (r *ObjectReader) ReadAt(b []byte, off int64) (int, error) {
	if r.closed.Load() {
		return 0, errClosed
	}
	if off < 0 {
		return 0, errors.New("pack: ReadAt: negative offset")
	}
	size := r.Size()
	if off >= size {
		return 0, io.EOF
	}
	want := len(b)
	if int64(want) > size-off {
		b = b[:size-off]
	}
	if r.csums != nil {
		return r.readChunked(b, off, want)
	}
	i := sort.Search(len(r.segs), func(i int) bool { return r.segs[i].start+r.segs[i].n > uint64(off) })
	n := 0
	for n < len(b) && i < len(r.segs) {
		sg := &r.segs[i]
		rel := uint64(off) + uint64(n) - sg.start
		m := int(min(uint64(len(b)-n), sg.n-rel))
		if err := r.readSegment(sg, b[n:n+m], sg.off+rel); err != nil {
			return n, err
		}
		n += m
		i++
	}
	if n < want {
		return n, io.EOF
	}
	return n, nil
}

// readSegment fills b from section sg.sec at uncompressed offset at.
//
// A section too large for the cache is read by one of three means, each
// returning only verified bytes: in a package read with WithTrustedKeys,
// from stored bytes the signature checked (in place when raw, by its
// blocks when it has them, else streamed); an object that lies in it alone and fits a quarter of
// the cache, whole through the cache, checked against its digest
// (objectEntry); anything else streamed through Section.OpenVerified,
// which checks the section whole before its first byte is returned.
func (r *ObjectReader) readSegment(sg *segment, b []byte, at uint64) error {
	s := r.p.Reader.Sections[sg.sec]
	verified := r.p.signers != nil
	if !s.Compressed() && verified {
		return readRaw(s, b, at)
	}
	if sg.mode == accessCached && !r.inPlace(s) {
		e, data, err := r.cached(sg)
		if err != nil {
			return err
		}
		copy(b, data[at:])
		r.p.cache.release(e)
		return nil
	}
	if verified {
		// Every stored byte the blocks' decoders read was checked
		// against the signature: the blocks that hold b, and no more.
		if blocks := r.p.sectionBlocks(sg.sec); blocks != nil {
			return r.p.readBlocks(s, blocks, b, at)
		}
	}
	if !verified && r.objectWise() && int64(r.obj.Size) <= r.p.cache.maxEntry() {
		e, err := r.objectEntry(sg)
		if err != nil {
			return err
		}
		copy(b, e.data[at-sg.off:])
		r.p.cache.release(e)
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil || r.st.sec != sg.sec || r.st.pos > at || !r.st.verified && !verified {
		r.p.streams.put(r.st)
		r.st = r.p.streams.get(sg.sec, at, !verified)
		if r.st == nil {
			open := s.OpenVerified
			if verified {
				open = s.Open
			}
			rc, err := open()
			if err != nil {
				return err
			}
			r.st = &sectionStream{rc: rc, sec: sg.sec, verified: !verified}
			r.p.streams.opened.Add(1)
		}
	}
	if err := r.st.skipTo(at); err != nil {
		return r.streamErr(sg, err)
	}
	k, err := io.ReadFull(r.st.rc, b)
	r.st.pos += uint64(k)
	if err != nil {
		return r.streamErr(sg, err)
	}
	return nil
}

// inPlace reports whether the reader's object, in the raw section s, is
// read by itself: its own stored bytes, read in place and checked against
// its digest (see objectEntry), whatever the section's size; a stored
// object of a package written by a Writer is read so (see classify.go).
func (r *ObjectReader) inPlace(s *bpx.Section) bool {
	return !s.Compressed() && r.p.signers == nil && r.objectWise() && int64(r.obj.Size) <= r.p.cache.maxEntry()
}

// readRaw fills b from the raw section s at offset at, in place.
func readRaw(s *bpx.Section, b []byte, at uint64) error {
	_, err := s.ReadAt(b, int64(at))
	if err == io.EOF {
		err = &bpx.FormatError{Offset: int64(at), Section: s.Index, What: "section data cut short by the end of the file", Err: io.ErrUnexpectedEOF}
	}
	return err
}

// objectEntry returns the cache entry holding the bytes of the reader's
// object, which lies in segment sg of a section too large for the cache,
// pinned (release it): read at each load from the blocks that hold it
// (see blocks.go) or from a decoder of the section (one left by an
// earlier read before the object, if any), and checked against the
// object's digest before any of it is handed out. The entry is keyed by
// the bytes' place and that digest, not by the object's number, which a
// crafted index entry may give to other bytes.
func (r *ObjectReader) objectEntry(sg *segment) (*centry, error) {
	p := r.p
	s := p.Reader.Sections[sg.sec]
	n := int(sg.n)
	load := func(buf []byte) ([]byte, error) {
		if cap(buf) < n {
			buf = make([]byte, 0, n)
		}
		buf = buf[:n]
		if !s.Compressed() {
			if err := readRaw(s, buf, sg.off); err != nil {
				return buf[:0], err
			}
		} else if blocks := p.sectionBlocks(sg.sec); blocks != nil {
			if err := p.readBlocks(s, blocks, buf, sg.off); err != nil {
				return buf[:0], err
			}
		} else {
			st := p.streams.get(sg.sec, sg.off, false)
			if st == nil {
				rc, err := s.Open()
				if err != nil {
					return buf[:0], err
				}
				st = &sectionStream{rc: rc, sec: sg.sec}
				p.streams.opened.Add(1)
			}
			err := st.skipTo(sg.off)
			if err == nil {
				var k int
				k, err = io.ReadFull(st.rc, buf)
				st.pos += uint64(k)
			}
			if err != nil {
				st.rc.Close()
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					err = &bpx.FormatError{Offset: int64(st.pos), Section: sg.sec, What: "section decoded to fewer bytes than the object needs", Err: io.ErrUnexpectedEOF}
				}
				return buf[:0], err
			}
			p.streams.put(st)
		}
		if err := r.checkDigest(buf, nil); err != nil {
			return buf[:0], err
		}
		return buf, nil
	}
	key := cacheKey{kind: keyObject, sec: sg.sec, off: sg.off, size: sg.n, sum: r.sum}
	return p.cache.get(key, int64(n), load, false)
}

// cached returns the cache entry of segment sg's section, pinned (release
// it), and its bytes, after checking that they hold the segment.
//
// An object that lies in one section, of a package whose objects can be
// checked on their own, needs its section decoded only up to the object's
// end (see SectionDigests): the entry is then decoded in steps, and the
// object's bytes are checked against its digest before any is returned.
// In a package read with WithTrustedKeys every stored byte the decoder
// reads was checked against the signature, so what it decodes needs no
// other check. Otherwise the whole section is decoded and checked first.
func (r *ObjectReader) cached(sg *segment) (*centry, []byte, error) {
	sec, size := sg.sec, int64(r.p.secSize[sg.sec])
	var e *centry
	var data []byte
	var err error
	stepwise := r.stepwise() && !r.whole && !r.p.wholeFast(sec)
	if stepwise {
		e, data, err = r.p.cache.getPartial(sectionKey(sec), size, int64(sg.off+sg.n), r.p.Reader.Sections[sec].OpenPartial, !r.noAhead)
	} else {
		e, err = r.p.cache.get(sectionKey(sec), size, r.p.Reader.Sections[sec].AppendData, !r.noAhead)
		if e != nil {
			data = e.data
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if sg.off+sg.n > uint64(len(data)) {
		r.p.cache.release(e)
		return nil, nil, r.p.objectError(r.obj, fmt.Sprintf("section %d decoded to %d bytes, fewer than its header says", sec, len(data)), ErrObjectRange)
	}
	if stepwise && r.p.signers == nil {
		if err := r.checkDigest(data[sg.off:sg.off+sg.n], e); err != nil {
			r.p.cache.release(e)
			return nil, nil, err
		}
	}
	return e, data, nil
}

// wholeFast reports whether section sec is decoded whole even for an
// object near its start: a zstd section of a local file, which decodes
// whole (about 1 ms a MiB) for less than decoding it in steps costs, and
// whose stored bytes cost no request. Over HTTP, decoding in steps still
// saves the stored bytes after the object.
func (p *Package) wholeFast(sec int) bool {
	return !p.cfg.remote && p.Reader.Sections[sec].Flags&bpx.FlagZstd != 0
}

// stepwise reports whether an object of segments segs may be read from a
// section decoded only up to its end: it lies in one section, and the
// package can check it without the section's checksum.
func (r *ObjectReader) stepwise() bool {
	return r.p.signers != nil && len(r.segs) == 1 || r.objectWise()
}

// objectWise reports whether an object of segments segs can be checked on
// its own, against its digest: it lies in one section, and the package
// has usable digests.
func (r *ObjectReader) objectWise() bool {
	return len(r.segs) == 1 && r.hasSum
}

// checkDigest checks b, the whole of the reader's object, against its
// digest. b lies in cache entry e (nil: in no entry), whose bytes never
// change: e remembers the bytes it checked, by their place and digest,
// so that reading an object piece by piece checks it once per load of
// its section, and bytes read again from a changed file after an
// eviction are checked again.
func (r *ObjectReader) checkDigest(b []byte, e *centry) error {
	if !r.hasSum {
		return nil
	}
	sp := checkedSpan{off: r.segs[0].off, size: uint64(len(b)), sum: r.sum}
	if e != nil && e.wasChecked(sp) {
		return nil
	}
	if got := objectDigest(b); got != r.sum {
		return r.p.objectError(r.obj, fmt.Sprintf("CRC-32C %#08x, digest %#08x", got, r.sum), bpx.ErrChecksum)
	}
	if e != nil {
		e.noteChecked(sp)
	}
	return nil
}

// WriteTo writes the rest of the object to w. An object read from the start
// that lies within one cached section is written straight from the cache,
// without a copy through a buffer (Unpack writes most files this way).
func (r *ObjectReader) WriteTo(w io.Writer) (int64, error) {
	if r.closed.Load() {
		return 0, errClosed
	}
	if r.pos == 0 && len(r.segs) == 1 && r.inPlace(r.p.Reader.Sections[r.segs[0].sec]) {
		if r.whole {
			return r.writeStored(w)
		}
		e, err := r.objectEntry(&r.segs[0])
		if err != nil {
			return 0, err
		}
		n, err := w.Write(e.data)
		r.p.cache.release(e)
		r.pos += int64(n)
		return int64(n), err
	}
	if r.pos == 0 && len(r.segs) == 1 && r.segs[0].mode == accessCached {
		sg := &r.segs[0]
		e, data, err := r.cached(sg)
		if err != nil {
			return 0, err
		}
		n, err := w.Write(data[sg.off : sg.off+sg.n])
		r.p.cache.release(e)
		r.pos += int64(n)
		return int64(n), err
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	var total int64
	for {
		k, rerr := r.Read(*bp)
		if k > 0 {
			m, werr := w.Write((*bp)[:k])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if rerr == io.EOF {
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}

// writeStored writes the reader's object, stored raw in one segment, to
// w for Unpack: its stored bytes read into a reused buffer and checked
// against its digest before any is written, not kept in the cache (every
// object is read once, and a fresh buffer each would be cleared first).
func (r *ObjectReader) writeStored(w io.Writer) (int64, error) {
	sg := &r.segs[0]
	bp := storedBufs.Get().(*[]byte)
	defer storedBufs.Put(bp)
	if uint64(cap(*bp)) < sg.n {
		*bp = make([]byte, sg.n)
	}
	buf := (*bp)[:sg.n]
	if err := readRaw(r.p.Reader.Sections[sg.sec], buf, sg.off); err != nil {
		return 0, err
	}
	if err := r.checkDigest(buf, nil); err != nil {
		return 0, err
	}
	n, err := w.Write(buf)
	r.pos += int64(n)
	return int64(n), err
}

// storedBufs holds writeStored's buffers, each as large as the largest
// object it read (at most a quarter of the cache).
var storedBufs = sync.Pool{New: func() any { return new([]byte) }}

// copyBufs holds WriteTo's buffers for objects it cannot write in place.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

func (r *ObjectReader) streamErr(sg *segment, err error) error {
	pos := r.st.pos
	r.st.rc.Close()
	r.st = nil
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &bpx.FormatError{Offset: int64(pos), Section: sg.sec, What: "section decoded to fewer bytes than the object needs", Err: io.ErrUnexpectedEOF}
	}
	return err
}

// Close releases the reader's decoder. Reads after Close fail.
func (r *ObjectReader) Close() error {
	r.closed.Store(true)
	r.mu.Lock()
	r.p.streams.put(r.st)
	r.st = nil
	r.mu.Unlock()
	return nil
}

// sectionStream is a decoder of a section too large for the cache, at
// uncompressed position pos.
type sectionStream struct {
	rc       io.ReadCloser
	sec      int
	pos      uint64
	verified bool // rc is Section.OpenVerified's: every byte it returns was checked
}

// skipTo decodes and drops the bytes up to position at (at ≥ st.pos).
func (st *sectionStream) skipTo(at uint64) error {
	if gap := at - st.pos; gap > 0 {
		k, err := io.CopyN(io.Discard, st.rc, int64(gap))
		st.pos += uint64(k)
		return err
	}
	return nil
}

// maxIdleStreams bounds the decoders a Package keeps for reuse; each may
// hold an xz dictionary.
const maxIdleStreams = 4

// streamPool keeps the decoders of closed readers, so that reading the
// objects of a large section one after the other (as Unpack does) decodes
// the section once instead of once per object.
type streamPool struct {
	mu     sync.Mutex
	idle   []*sectionStream
	opened atomic.Int64 // decoders started, for tests
}

// get takes the idle decoder of section sec that is furthest along but not
// past at, one of OpenVerified if verified is set, or returns nil.
func (sp *streamPool) get(sec int, at uint64, verified bool) *sectionStream {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	best := -1
	for i, st := range sp.idle {
		if st.sec == sec && st.pos <= at && (st.verified || !verified) && (best < 0 || st.pos > sp.idle[best].pos) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	st := sp.idle[best]
	sp.idle = append(sp.idle[:best], sp.idle[best+1:]...)
	return st
}

// put returns st to the pool, closing the oldest decoder beyond the limit.
func (sp *streamPool) put(st *sectionStream) {
	if st == nil {
		return
	}
	sp.mu.Lock()
	sp.idle = append(sp.idle, st)
	var drop *sectionStream
	if len(sp.idle) > maxIdleStreams {
		drop = sp.idle[0]
		sp.idle = sp.idle[1:]
	}
	sp.mu.Unlock()
	if drop != nil {
		drop.rc.Close()
	}
}
