package pack

import (
	"container/list"
	"runtime"
	"slices"
	"sync"

	"github.com/gobpx/bpx"
)

// cache keeps decompressed sections, least recently used first out, within
// a byte budget. Concurrent requests for the same section share one load.
//
// Callers pin an entry while they copy from it (get, then release), so the
// buffer of an evicted entry can be reused by the next load once nobody
// reads it: decoding a package section after section (as Unpack does) then
// fills the same few buffers instead of allocating one per section. Fresh
// memory is expensive (page faults), and unpacking GOROOT/src's package
// faulted in 70 MiB for 130 MiB of sections before.
//
// Read-ahead: when a load is for the section that follows the one loaded
// before (next says which that is), and the load before did the same, the
// cache also starts loading the sections after it on other goroutines, as
// many as GOMAXPROCS, so that the cores decode the sections readers will
// want next while the readers copy from those decoded before. The first
// reader of a section read ahead starts the next one, keeping the
// pipeline full: readers in order, even several that all wait on the same
// section, then keep every core decoding. A read-ahead is an ordinary
// entry (a reader asking for it waits for it), its bytes count against the
// budget from the start, and it only starts if evicting unpinned entries
// other than the most recent makes room for it. Its errors are not kept,
// like any load's.
type cache struct {
	mu      sync.Mutex
	max     int64
	used    int64 // charged by the entries and the free buffers
	entries map[cacheKey]*centry
	lru     list.List // of *centry, most recent at the front
	free    [][]byte  // buffers of evicted, unpinned entries
	gen     uint64    // the generation of the last entry made
	loads   int       // number of loads, for tests
	reused  int       // loads into a recycled buffer, for tests
	aheads  int       // read-aheads started, for tests

	// next returns the section a reader in order wants after sec, its
	// decoded size and loader, or -1 if none is worth reading ahead.
	next     func(sec int) (int, int64, loader)
	lastNext int   // next of the last load, -1 if none
	run      int   // loads in a row that followed the one before
	aheadRes int64 // bytes reserved for the read-aheads in flight
	inflight int   // read-aheads in flight
	maxAhead int   // at most this many in flight
	aheadWG  sync.WaitGroup
	closed   bool          // no more read-ahead
	onAhead  func(sec int) // test hook, called with c.mu held
}

// minRun is how many loads in a row must each follow the one before for
// the cache to read ahead. Readers in random order see one load follow
// the one before by chance (one in as many sections), two in a row far
// more rarely: BenchmarkReadRandomParallel read ahead 3 to 4 times in 190
// loads with one, never with two.
const minRun = 2

// loader decodes a section, appending to buf.
type loader func(buf []byte) ([]byte, error)

// maxFreeBuffers bounds the buffers kept for reuse.
const maxFreeBuffers = 4

// entryOverhead is what an entry is charged besides its bytes and its
// decoder: its own structures, so that many tiny entries are bounded too.
const entryOverhead = 1 << 10

// cacheKey names what a cache entry holds, never who asked for it: two
// readers share an entry only when they want the same bytes, checked the
// same way. An index entry or a table row that names an object cannot
// reach bytes cached for another place through the object's number.
type cacheKey struct {
	kind cacheKind
	sec  int    // the section (keySection, keyBlock, keyObject)
	n    int64  // the block (keyBlock) or the index page (keyPage)
	off  uint64 // keyObject: where the bytes start in the section's decoded data
	size uint64 // keyObject: how many bytes
	sum  uint32 // keyObject: the CRC-32C they were checked against
}

// cacheKind is what an entry holds.
type cacheKind uint8

const (
	keySection  cacheKind = iota // a section, decoded whole or in part
	keyBlock                     // one xz block of a section too large for the cache (blocks.go)
	keyObject                    // the bytes of one object read by itself, checked (objectEntry)
	keyPage                      // a page of the path index, checked (pathlookup.go)
	keyBlockMap                  // a section's xz block map, checked (blocks.go)
)

// sectionKey is the key of section sec.
func sectionKey(sec int) cacheKey { return cacheKey{kind: keySection, sec: sec} }

// A cache entry is what its key says it holds.
type centry struct {
	key     cacheKey
	gen     uint64 // unique to this load: checks of its bytes hold for it alone
	charge  int64  // what it counts in the cache's budget
	ready   chan struct{}
	data    []byte // the decoded section, or its first part while part is set
	val     any    // what the entry holds besides bytes (getValue)
	valSize int64  // the bytes val holds
	err     error
	elem    *list.Element
	pins    int  // callers between get and release
	evicted bool // out of the cache; recycle data when unpinned

	ahead bool // loaded by a read-ahead and not asked for yet

	// A section loaded by getPartial is decoded only as far as readers
	// have needed: part continues it, one reader at a time (extend
	// holds mu), into data's capacity (the whole section), so the bytes
	// handed out never move. data changes under both mu and c.mu.
	mu   sync.Mutex
	part *bpx.Partial // nil once the whole section is decoded and verified

	// The objects' bytes in data checked against a digest (see
	// ObjectReader.checkDigest), the latest maxChecked, under checkMu.
	checkMu sync.Mutex
	checked []checkedSpan
}

// checkedSpan is bytes of an entry that matched a digest: where they lie,
// how many, and the digest. A memo keyed by object number would let a
// crafted index entry naming that object at another place pass unchecked.
type checkedSpan struct {
	off, size uint64
	sum       uint32
}

// maxChecked bounds the spans an entry remembers: enough for the objects
// readers read piece by piece at once; any other is checked again (a
// CRC-32C, tens of GB/s).
const maxChecked = 32

// wasChecked reports whether sp's bytes of e matched its digest.
func (e *centry) wasChecked(sp checkedSpan) bool {
	e.checkMu.Lock()
	defer e.checkMu.Unlock()
	return slices.Contains(e.checked, sp)
}

// noteChecked remembers that sp's bytes of e matched its digest.
func (e *centry) noteChecked(sp checkedSpan) {
	e.checkMu.Lock()
	defer e.checkMu.Unlock()
	if len(e.checked) == maxChecked {
		e.checked = append(e.checked[:0], e.checked[1:]...)
	}
	e.checked = append(e.checked, sp)
}

func newCache(budget int64) *cache {
	return &cache{max: budget, entries: make(map[cacheKey]*centry), lastNext: -1, maxAhead: max(1, runtime.GOMAXPROCS(0))}
}

// maxEntry is the largest section the cache takes: a quarter of its budget,
// so that a few sections in use by concurrent readers fit together.
func (c *cache) maxEntry() int64 { return c.max / 4 }

// get returns the entry of key, pinned, calling load once for
// concurrent callers (with a recycled buffer to append to, if any). The
// caller reads e.data, then calls release(e). Errors are not cached: the
// next call loads again. size is the section's expected decoded size;
// ahead allows a read-ahead if this load continues a run in order.
func (c *cache) get(key cacheKey, size int64, load loader, ahead bool) (*centry, error) {
	return c.getValue(key, size, func(buf []byte) ([]byte, any, int64, error) {
		data, err := load(buf)
		return data, nil, 0, err
	}, ahead)
}

// getValue is get for an entry that holds a value besides bytes, such as
// a section's block map: load returns it and the bytes it holds, which
// count in the budget as a buffer does (e.val, e.valSize).
func (c *cache) getValue(key cacheKey, size int64, load func(buf []byte) ([]byte, any, int64, error), ahead bool) (*centry, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		if _, err := c.found(e, size, ahead); err != nil {
			return nil, err
		}
		return e, nil
	}
	c.makeRoom(size)
	e, buf := c.add(key)
	e.pins = 1
	c.noteLoad(key, size, ahead)
	c.mu.Unlock()

	data, val, valSize, err := load(buf[:0])

	c.mu.Lock()
	e.val, e.valSize = val, valSize
	c.finish(e, buf, data, err)
	c.mu.Unlock()
	close(e.ready)
	if err != nil {
		c.release(e)
		return nil, err
	}
	return e, nil
}

// noteLoad follows the run of loads in order and starts a read-ahead
// where it continues one; c.mu is held.
func (c *cache) noteLoad(key cacheKey, size int64, ahead bool) {
	if c.next != nil && key.kind == keySection {
		if key.sec == c.lastNext {
			c.run++
		} else {
			c.run = 0
		}
		nsec, _, _ := c.next(key.sec)
		c.lastNext = nsec
		if c.run >= minRun && ahead && nsec >= 0 {
			c.fill(key.sec, size)
		}
	}
}

// found pins e, an entry of the cache, waits for its load and decodes it
// at least to need bytes, and returns its bytes; c.mu is held and
// released. On error e is unpinned.
func (c *cache) found(e *centry, need int64, ahead bool) ([]byte, error) {
	if e.elem != nil {
		c.lru.MoveToFront(e.elem)
	}
	if e.ahead {
		// The first reader of a section read ahead: the run goes on.
		e.ahead = false
		if ahead && c.next != nil {
			c.fill(e.key.sec, 0)
		}
	}
	e.pins++
	c.mu.Unlock()
	<-e.ready
	err := e.err
	var data []byte
	if err == nil {
		data, err = c.extend(e, need)
	}
	if err != nil {
		c.release(e)
		return nil, err
	}
	return data, nil
}

// opener starts decoding a section in steps onto buf.
type opener func(buf []byte) (*bpx.Partial, error)

// getPartial returns the entry of key (a section or a block), pinned, decoded at least to
// need bytes, and those bytes (more, if an earlier reader needed more):
// read them from the slice returned, not from e.data, which another reader
// may extend meanwhile. The bytes are unverified until the section is
// decoded whole: the caller checks what it uses. size is the section's
// decoded size, the capacity its buffer gets at once.
func (c *cache) getPartial(key cacheKey, size, need int64, open opener, ahead bool) (*centry, []byte, error) {
	c.mu.Lock()
	if e, ok := c.entries[key]; ok {
		data, err := c.found(e, need, ahead)
		if err != nil {
			return nil, nil, err
		}
		return e, data, nil
	}
	c.makeRoom(size)
	e, buf := c.add(key)
	e.pins = 1
	c.noteLoad(key, size, ahead)
	c.mu.Unlock()

	if int64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	part, err := open(buf[:0])
	data := buf[:0]
	if err == nil {
		if data, err = part.DecodeTo(need); err != nil || part.Verified() {
			part.Close()
			part = nil
		}
	}
	c.mu.Lock()
	e.part = part
	c.finish(e, buf, data, err)
	c.mu.Unlock()
	close(e.ready)
	if err != nil {
		c.release(e)
		return nil, nil, err
	}
	return e, data, nil
}

// extend decodes the pinned entry e at least to need bytes, if it is being
// decoded in steps, and returns its bytes. An error takes e out of the
// cache: the next reader starts the section again.
func (c *cache) extend(e *centry, need int64) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.part == nil {
		return e.data, nil // no lock needed: it no longer changes
	}
	if int64(len(e.data)) >= need {
		return e.data, nil
	}
	data, err := e.part.DecodeTo(need)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || e.part.Verified() {
		e.part.Close()
		e.part = nil
	}
	if err != nil {
		if !e.evicted {
			c.evict(e)
		}
		return nil, err
	}
	e.data = data
	if !e.evicted {
		c.recharge(e)
		c.trim()
	}
	return data, nil
}

// recharge counts what e holds now in the budget; c.mu is held.
func (c *cache) recharge(e *centry) {
	n := int64(cap(e.data)) + e.valSize + entryOverhead
	if e.part != nil {
		n += e.part.Footprint()
	}
	c.used += n - e.charge
	e.charge = n
}

// makeRoom evicts the least recently used entries until a load of size
// bytes fits in the budget, before it starts: the buffer of an entry
// evicted then is free for the load to reuse (fresh memory is expensive),
// where evicting after the load, with the new entry counted, would leave
// no room to keep it. c.mu is held.
func (c *cache) makeRoom(size int64) {
	for c.used+c.aheadRes+size+entryOverhead > c.max && c.lru.Len() > 0 {
		if len(c.free) > 0 && int64(cap(c.free[len(c.free)-1])) >= size {
			return // the load takes it
		}
		c.evict(c.lru.Back().Value.(*centry))
	}
}

// trim drops free buffers, then evicts the least recently used entries,
// until the cache is within its budget or holds one entry; c.mu is held.
func (c *cache) trim() {
	for c.used+c.aheadRes > c.max && len(c.free) > 0 {
		n := len(c.free) - 1
		c.used -= int64(cap(c.free[n]))
		c.free[n] = nil
		c.free = c.free[:n]
	}
	for c.used+c.aheadRes > c.max && c.lru.Len() > 1 {
		c.evict(c.lru.Back().Value.(*centry))
	}
}

// add makes the entry of key, being loaded, and hands out a recycled
// buffer for it if there is one; c.mu is held.
func (c *cache) add(key cacheKey) (*centry, []byte) {
	c.gen++
	e := &centry{key: key, gen: c.gen, ready: make(chan struct{})}
	c.entries[key] = e
	c.loads++
	var buf []byte
	if n := len(c.free); n > 0 {
		buf, c.free = c.free[n-1], c.free[:n-1]
		c.used -= int64(cap(buf))
		c.reused++
	}
	return e, buf
}

// finish records the outcome of e's load into buf; c.mu is held.
func (c *cache) finish(e *centry, buf, data []byte, err error) {
	if err != nil {
		// data is buf or what it grew into: recycle it once, here, and
		// keep nothing in e for release to recycle again.
		e.err = err
		delete(c.entries, e.key)
		e.evicted = true
		if cap(data) > cap(buf) {
			buf = data
		}
		c.recycle(buf)
		return
	}
	e.data = data
	e.elem = c.lru.PushFront(e)
	c.recharge(e) // a recycled buffer may be larger than the data
	c.trim()
}

// evict takes old out of the cache; c.mu is held.
func (c *cache) evict(old *centry) {
	c.lru.Remove(old.elem)
	old.elem = nil
	delete(c.entries, old.key)
	c.used -= old.charge
	old.charge = 0
	old.evicted = true
	if old.pins == 0 {
		c.drop(old)
	}
}

// fill starts read-aheads of the sections after sec, in order, until
// maxAhead are in flight or one cannot start; pending bytes are being
// loaded besides. c.mu is held.
func (c *cache) fill(sec int, pending int64) {
	for range c.maxAhead + 1 {
		nsec, nsize, nload := c.next(sec)
		if nsec < 0 || !c.readAhead(nsec, nsize, pending, nload) {
			return
		}
		sec = nsec
	}
}

// readAhead starts loading section sec (size bytes) in the background,
// unless maxAhead read-aheads are in flight or the budget cannot hold it
// next to a section of pending bytes being loaded without evicting a
// pinned entry or the most recent one. It reports whether the section is
// in the cache or being loaded now. c.mu is held.
func (c *cache) readAhead(sec int, size, pending int64, load loader) bool {
	if _, ok := c.entries[sectionKey(sec)]; ok {
		return true
	}
	if c.inflight >= c.maxAhead || c.closed {
		return false
	}
	over := c.used + c.aheadRes + pending + size - c.max
	for _, b := range c.free { // reused or dropped when the load ends
		over -= int64(cap(b))
	}
	var victims []*centry
	if over > 0 {
		front := c.lru.Front()
		for el := c.lru.Back(); el != nil && el != front && over > 0; el = el.Prev() {
			if old := el.Value.(*centry); old.pins == 0 {
				victims = append(victims, old)
				over -= old.charge
			}
		}
		if over > 0 {
			return false
		}
	}
	for _, old := range victims {
		c.evict(old)
	}
	e, buf := c.add(sectionKey(sec))
	e.ahead = true
	c.aheads++
	c.inflight++
	c.aheadRes += size
	if nsec, _, _ := c.next(sec); nsec >= 0 {
		c.lastNext = nsec
	}
	if c.onAhead != nil {
		c.onAhead(sec)
	}
	c.aheadWG.Add(1)
	go func() {
		defer c.aheadWG.Done()
		data, err := load(buf[:0])
		c.mu.Lock()
		c.inflight--
		c.aheadRes -= size
		c.finish(e, buf, data, err)
		c.mu.Unlock()
		close(e.ready)
	}()
	return true
}

// close stops read-ahead and waits for the one in flight to end.
func (c *cache) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.aheadWG.Wait()
}

// release unpins e; an evicted entry's buffer is recycled when the last
// reader lets go.
func (c *cache) release(e *centry) {
	c.mu.Lock()
	e.pins--
	if e.pins == 0 && e.evicted {
		c.drop(e)
	}
	c.mu.Unlock()
}

// drop lets go of an evicted entry nobody reads: its buffer is kept for
// reuse and its decoder closed; c.mu is held.
func (c *cache) drop(e *centry) {
	if e.part != nil {
		e.part.Close()
		e.part = nil
	}
	if e.data != nil {
		c.recycle(e.data)
		e.data = nil
	}
}

// recycle keeps buf for a later load if there is room, in the budget
// too; c.mu is held.
func (c *cache) recycle(buf []byte) {
	if cap(buf) > 0 && len(c.free) < maxFreeBuffers && c.used+int64(cap(buf)) <= c.max {
		c.free = append(c.free, buf[:0])
		c.used += int64(cap(buf))
	}
}
