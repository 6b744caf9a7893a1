package explorer

import (
	"sync"

	"github.com/gobpx/bpx/types/pack"
)

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

// listing is an ordered listing: its entries, or for a directory of a
// path-ordered package that holds files only, the run of objects below
// it (then the listing costs no memory of its own).
type listing struct {
	ents   []listEntry
	run    []pack.Object
	prefix string // of the names in run
}

// len is the number of entries.
func (l *listing) len() int {
	if l.run != nil {
		return len(l.run)
	}
	return len(l.ents)
}

// entry returns entry i.
func (l *listing) entry(i int) listEntry {
	if l.run != nil {
		return listEntry{name: l.run[i].Name[len(l.prefix):], size: int64(l.run[i].Size)}
	}
	return l.ents[i]
}

// cachedList is a listing, ready once done is closed.
type cachedList struct {
	done  chan struct{}
	l     *listing
	err   error
	ready bool // done is closed (read under the cache's mu)
	used  uint64
}

// get returns the listing of key, calling build to make it when it is not
// cached. Errors are not cached.
func (c *listCache) get(key listKey, build func() (*listing, error)) (*listing, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[listKey]*cachedList{}
	}
	c.tick++
	if l := c.m[key]; l != nil {
		l.used = c.tick
		c.mu.Unlock()
		<-l.done
		return l.l, l.err
	}
	l := &cachedList{done: make(chan struct{}), used: c.tick}
	c.m[key] = l
	c.mu.Unlock()

	l.l, l.err = build()
	c.mu.Lock()
	l.ready = true
	if l.err != nil || len(l.l.ents) > maxCachedEntries {
		delete(c.m, key)
	} else {
		c.entries += len(l.l.ents)
		c.evict(l)
	}
	c.mu.Unlock()
	close(l.done)
	return l.l, l.err
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
		c.entries -= len(old.l.ents)
	}
}
