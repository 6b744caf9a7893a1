package explorer

import "sync"

// Bounds of the listing cache: the entries of all cached listings (about
// 32 bytes each on 64-bit, names shared with the packages), and the
// number of listings.
const (
	maxCachedEntries = 2 << 20
	maxCachedLists   = 64
)

// listCache keeps the ordered listings of recently listed directories
// (and filters of them), so that paging through a directory of a million
// objects sorts it once. The least recently used listings go first when
// a bound is passed; a listing larger than maxCachedEntries is not kept.
// Concurrent requests for a listing being built wait for it. The zero
// value is ready to use.
type listCache struct {
	mu      sync.Mutex
	m       map[listKey]*cachedList
	entries int    // in the ready listings of m
	tick    uint64 // counts uses, for LRU
}

// cachedList is a listing, ready once done is closed.
type cachedList struct {
	done  chan struct{}
	ents  []listEntry
	err   error
	ready bool // done is closed (read under the cache's mu)
	used  uint64
}

// get returns the listing of key, calling build to make it when it is not
// cached. Errors are not cached.
func (c *listCache) get(key listKey, build func() ([]listEntry, error)) ([]listEntry, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[listKey]*cachedList{}
	}
	c.tick++
	if l := c.m[key]; l != nil {
		l.used = c.tick
		c.mu.Unlock()
		<-l.done
		return l.ents, l.err
	}
	l := &cachedList{done: make(chan struct{}), used: c.tick}
	c.m[key] = l
	c.mu.Unlock()

	l.ents, l.err = build()
	c.mu.Lock()
	l.ready = true
	if l.err != nil || len(l.ents) > maxCachedEntries {
		delete(c.m, key)
	} else {
		c.entries += len(l.ents)
		c.evict(l)
	}
	c.mu.Unlock()
	close(l.done)
	return l.ents, l.err
}

// evict drops the least recently used ready listings other than keep
// until the cache is within its bounds. c.mu is held.
func (c *listCache) evict(keep *cachedList) {
	for c.entries > maxCachedEntries || len(c.m) > maxCachedLists {
		var oldKey listKey
		var old *cachedList
		for k, l := range c.m {
			if l != keep && l.ready && (old == nil || l.used < old.used) {
				oldKey, old = k, l
			}
		}
		if old == nil {
			return
		}
		delete(c.m, oldKey)
		c.entries -= len(old.ents)
	}
}
