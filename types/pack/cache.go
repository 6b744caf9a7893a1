package pack

import (
	"container/list"
	"sync"
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
type cache struct {
	mu      sync.Mutex
	max     int64
	used    int64
	entries map[int]*centry
	lru     list.List // of *centry, most recent at the front
	free    [][]byte  // buffers of evicted, unpinned entries
	loads   int       // number of loads, for tests
	reused  int       // loads into a recycled buffer, for tests
}

// maxFreeBuffers bounds the buffers kept for reuse.
const maxFreeBuffers = 4

type centry struct {
	idx     int
	ready   chan struct{}
	data    []byte
	err     error
	elem    *list.Element
	pins    int  // callers between get and release
	evicted bool // out of the cache; recycle data when unpinned
}

func newCache(max int64) *cache {
	return &cache{max: max, entries: make(map[int]*centry)}
}

// maxEntry is the largest section the cache takes: a quarter of its budget,
// so that a few sections in use by concurrent readers fit together.
func (c *cache) maxEntry() int64 { return c.max / 4 }

// get returns the entry of section idx, pinned, calling load once for
// concurrent callers (with a recycled buffer to append to, if any). The
// caller reads e.data, then calls release(e). Errors are not cached: the
// next call loads again.
func (c *cache) get(idx int, load func(buf []byte) ([]byte, error)) (*centry, error) {
	c.mu.Lock()
	if e, ok := c.entries[idx]; ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		e.pins++
		c.mu.Unlock()
		<-e.ready
		if e.err != nil {
			c.release(e)
			return nil, e.err
		}
		return e, nil
	}
	e := &centry{idx: idx, ready: make(chan struct{}), pins: 1}
	c.entries[idx] = e
	c.loads++
	var buf []byte
	if n := len(c.free); n > 0 {
		buf, c.free = c.free[n-1], c.free[:n-1]
		c.reused++
	}
	c.mu.Unlock()

	data, err := load(buf[:0])

	c.mu.Lock()
	e.data, e.err = data, err
	if err != nil {
		delete(c.entries, idx)
		e.evicted = true
		c.recycle(buf)
	} else {
		e.elem = c.lru.PushFront(e)
		c.used += int64(cap(data)) // a recycled buffer may be larger
		for c.used > c.max && c.lru.Len() > 1 {
			old := c.lru.Back().Value.(*centry)
			c.lru.Remove(old.elem)
			old.elem = nil
			delete(c.entries, old.idx)
			c.used -= int64(cap(old.data))
			old.evicted = true
			if old.pins == 0 {
				c.recycle(old.data)
				old.data = nil
			}
		}
	}
	c.mu.Unlock()
	close(e.ready)
	if err != nil {
		c.release(e)
		return nil, err
	}
	return e, nil
}

// release unpins e; an evicted entry's buffer is recycled when the last
// reader lets go.
func (c *cache) release(e *centry) {
	c.mu.Lock()
	e.pins--
	if e.pins == 0 && e.evicted && e.data != nil {
		c.recycle(e.data)
		e.data = nil
	}
	c.mu.Unlock()
}

// recycle keeps buf for a later load if there is room; c.mu is held.
func (c *cache) recycle(buf []byte) {
	if cap(buf) > 0 && len(c.free) < maxFreeBuffers {
		c.free = append(c.free, buf[:0])
	}
}
