package pack

import (
	"container/list"
	"sync"
)

// cache keeps decompressed sections, least recently used first out, within
// a byte budget. Concurrent requests for the same section share one load.
// Slices handed out stay valid after eviction; they are never modified.
type cache struct {
	mu      sync.Mutex
	max     int64
	used    int64
	entries map[int]*centry
	lru     list.List // of *centry, most recent at the front
	loads   int       // number of loads, for tests
}

type centry struct {
	idx   int
	ready chan struct{}
	data  []byte
	err   error
	elem  *list.Element
}

func newCache(max int64) *cache {
	return &cache{max: max, entries: make(map[int]*centry)}
}

// maxEntry is the largest section the cache takes: a quarter of its budget,
// so that a few sections in use by concurrent readers fit together.
func (c *cache) maxEntry() int64 { return c.max / 4 }

// get returns the bytes of section idx, calling load once for concurrent
// callers. Errors are not cached: the next call loads again.
func (c *cache) get(idx int, load func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if e, ok := c.entries[idx]; ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		<-e.ready
		return e.data, e.err
	}
	e := &centry{idx: idx, ready: make(chan struct{})}
	c.entries[idx] = e
	c.loads++
	c.mu.Unlock()

	data, err := load()

	c.mu.Lock()
	e.data, e.err = data, err
	if err != nil {
		delete(c.entries, idx)
	} else {
		e.elem = c.lru.PushFront(e)
		c.used += int64(len(data))
		for c.used > c.max && c.lru.Len() > 1 {
			old := c.lru.Back().Value.(*centry)
			c.lru.Remove(old.elem)
			delete(c.entries, old.idx)
			c.used -= int64(len(old.data))
		}
	}
	c.mu.Unlock()
	close(e.ready)
	if err != nil {
		return nil, err
	}
	return data, nil
}
