package explorer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// Bounds of the listings (see the package doc's Security section): the
// bytes of all cached listings, of one listing being built, the number of
// cached listings, and how many listings are built at once. A listing
// larger than the cache is not kept. A listing's bytes are its entries
// (entrySize each), its key and the names it owns; names shared with a
// package's object names (every listing but the deep listing of a stack,
// whose paths are joined) are not counted again.
const (
	maxCachedBytes  = 64 << 20
	maxListingBytes = 64 << 20
	maxCachedLists  = 64
	maxListBuilds   = 2
)

// entrySize is the memory of one listEntry.
const entrySize = int64(unsafe.Sizeof(listEntry{}))

// listCache keeps the ordered listings of recently listed directories
// (and filters of them), so that paging through a directory of a million
// objects sorts it once. The least recently used listings go first when
// a bound is passed. Concurrent requests for a listing being built wait
// for it; at most maxListBuilds listings are built at once, each within
// maxListingBytes, and a build stops when its request is gone. The zero
// value is ready to use.
type listCache struct {
	mu         sync.Mutex
	m          map[listKey]*cachedList
	bytes      int64         // of the ready listings of m
	tick       uint64        // counts uses, for LRU
	builds     chan struct{} // a token per listing being built
	maxListing int64         // bound of a listing being built; 0: maxListingBytes
}

// listing is an ordered listing: its entries, or for a directory of a
// path-ordered package that holds files only, the run of objects below
// it (then the listing costs no memory of its own).
type listing struct {
	ents   []listEntry
	run    []pack.Object
	prefix string // of the names in run
	bytes  int64  // the memory it holds (see maxCachedBytes)
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
	cost  int64 // the listing's bytes and its key's
}

// get returns the listing of key, calling build to make it when it is not
// cached, with a budget that bounds it and stops it when ctx is done.
// Errors are not cached; a waiter whose builder's request went away
// builds the listing itself.
func (c *listCache) get(ctx context.Context, key listKey, build func(*listBudget) (*listing, error)) (*listing, error) {
	for {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[listKey]*cachedList{}
			c.builds = make(chan struct{}, maxListBuilds)
		}
		c.tick++
		if l := c.m[key]; l != nil {
			l.used = c.tick
			c.mu.Unlock()
			select {
			case <-l.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if isGone(l.err) && ctx.Err() == nil {
				continue
			}
			return l.l, l.err
		}
		l := &cachedList{done: make(chan struct{}), used: c.tick}
		c.m[key] = l
		max := c.maxListing
		if max == 0 {
			max = maxListingBytes
		}
		c.mu.Unlock()

		l.l, l.err = c.build(ctx, &listBudget{ctx: ctx, max: max, dir: key.dir}, build)
		c.mu.Lock()
		l.ready = true
		if l.err == nil {
			l.cost = l.l.bytes + int64(len(key.dir)+len(key.q))
		}
		if l.err != nil || l.cost > maxCachedBytes {
			delete(c.m, key)
		} else {
			c.bytes += l.cost
			c.evict(l)
		}
		c.mu.Unlock()
		close(l.done)
		return l.l, l.err
	}
}

// build runs build under a build token.
func (c *listCache) build(ctx context.Context, b *listBudget, build func(*listBudget) (*listing, error)) (*listing, error) {
	select {
	case c.builds <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.builds }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return build(b)
}

// isGone reports whether err says that a request went away.
func isGone(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// evict drops the least recently used ready listings other than keep
// until the cache is within its bounds. c.mu is held.
func (c *listCache) evict(keep *cachedList) {
	for c.bytes > maxCachedBytes || len(c.m) > maxCachedLists {
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
		c.bytes -= old.cost
	}
}

// listBudget meters a listing being built: the bytes it holds against max,
// and its request, which stops the build when gone.
type listBudget struct {
	ctx   context.Context
	max   int64
	dir   string // for the error
	bytes int64
	n     int // charges, to check ctx now and then
}

// charge adds n bytes; it fails when the listing passes the bound or the
// request is gone.
func (b *listBudget) charge(n int64) error {
	b.bytes += n
	if b.bytes > b.max {
		return fmt.Errorf("listing %q: more than %d MiB of entries (the bound of a listing): narrow it with q: %w",
			b.dir, b.max>>20, bpx.ErrTooLarge)
	}
	if b.n++; b.n%1024 == 0 {
		return b.ctx.Err()
	}
	return nil
}

// collector gathers the entries of a listing being built, charging its
// budget for the memory they take.
type collector struct {
	b    *listBudget
	ents []listEntry
}

// add appends e; owned says whether its name belongs to the listing (a
// string made for it) rather than to a package's object names.
func (c *collector) add(e listEntry, owned bool) error {
	n := cap(c.ents)
	c.ents = append(c.ents, e)
	grown := int64(cap(c.ents)-n) * entrySize
	if owned {
		grown += int64(len(e.name))
	}
	return c.b.charge(grown)
}

// listing is the collected listing, with ents (the collected entries,
// reordered) as its entries.
func (c *collector) listing(ents []listEntry) *listing {
	return &listing{ents: ents, bytes: c.b.bytes + int64(cap(ents)-cap(c.ents))*entrySize}
}
