package sign

import "sync"

// chunkCache keeps the last verified chunks of a Verified, least recently
// used first out. It is safe for concurrent use; bytes are copied out
// under its lock, so a buffer is never reused while someone reads it.
type chunkCache struct {
	mu      sync.Mutex
	max     int
	tick    uint64
	entries []cacheEntry
	spare   []byte // an evicted buffer, for the next load
}

type cacheEntry struct {
	index int64  // the chunk's index
	data  []byte // its verified bytes
	used  uint64 // tick of the last use
}

// newChunkCache returns a cache of CacheChunks chunks of chunk bytes, or
// of as many as fit in CacheChunks*ChunkSize bytes (at least one) when
// chunks are larger than ChunkSize.
func newChunkCache(chunk uint32) *chunkCache {
	return &chunkCache{max: max(1, min(CacheChunks, CacheChunks*ChunkSize/int(chunk)))}
}

// copyOut copies chunk i's bytes from offset off into p and reports
// whether the chunk was cached.
func (c *chunkCache) copyOut(i int64, p []byte, off int64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if e := &c.entries[k]; e.index == i {
			c.tick++
			e.used = c.tick
			return copy(p, e.data[off:]), true
		}
	}
	return 0, false
}

// has reports whether chunk i is cached.
func (c *chunkCache) has(i int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if c.entries[k].index == i {
			return true
		}
	}
	return false
}

// buffer returns a buffer of n bytes for loading a chunk: a spare one when
// there is one of the size.
func (c *chunkCache) buffer(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.spare; len(b) == n {
		c.spare = nil
		return b
	}
	return make([]byte, n)
}

// put adds chunk i's verified bytes, which the cache owns from now on,
// evicting the least recently used chunk when it is full.
func (c *chunkCache) put(i int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	for k := range c.entries {
		if c.entries[k].index == i { // loaded twice concurrently
			c.entries[k].used = c.tick
			return
		}
	}
	if len(c.entries) < c.max {
		c.entries = append(c.entries, cacheEntry{index: i, data: data, used: c.tick})
		return
	}
	old := 0
	for k := range c.entries {
		if c.entries[k].used < c.entries[old].used {
			old = k
		}
	}
	c.spare = c.entries[old].data
	c.entries[old] = cacheEntry{index: i, data: data, used: c.tick}
}
