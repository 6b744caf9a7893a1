package sign

import (
	"bytes"
	"crypto/sha256"
	"sync"
)

// pageCache holds the pages of chunk digests of a paged manifest that a
// Verified read and checked against the manifest's page digests: at most
// pageCacheSize of them (64 KiB each at PageChunks).
type pageCache struct {
	off   int64 // where the chunk digests start in the file
	mu    sync.Mutex
	pages [pageCacheSize]struct {
		i int64 // page number + 1; 0: empty
		b []byte
	}
	next int // the slot the next page goes to
}

const pageCacheSize = 4

// digest returns the digest of chunk i: from the manifest, or from its
// page of a paged manifest, which is read and checked first if need be
// (an error matching ErrTampered if it does not match).
func (v *Verified) digest(i int64) ([]byte, error) {
	if v.pages == nil {
		return v.m.digest(i), nil
	}
	pg := i / int64(v.m.page)
	b, err := v.page(pg)
	if err != nil {
		return nil, err
	}
	at := (i - pg*int64(v.m.page)) * sha256.Size
	return b[at : at+sha256.Size], nil
}

// page returns page pg of the chunk digests, read and checked.
func (v *Verified) page(pg int64) ([]byte, error) {
	c := v.pages
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.pages {
		if s.i == pg+1 {
			return s.b, nil
		}
	}
	per := int64(v.m.page) * sha256.Size
	n := min(per, int64(v.m.chunkCount())*sha256.Size-pg*per)
	b := make([]byte, n)
	if err := readFull(v.r, b, c.off+pg*per); err != nil {
		return nil, err
	}
	if d := sha256.Sum256(b); !bytes.Equal(d[:], v.m.pageSums[pg*sha256.Size:(pg+1)*sha256.Size]) {
		return nil, tampered("signature section: page %d of the chunk digests (bytes [%d, %d)) does not match the manifest", pg, c.off+pg*per, c.off+pg*per+n)
	}
	c.pages[c.next].i, c.pages[c.next].b = pg+1, b
	c.next = (c.next + 1) % pageCacheSize
	return b, nil
}

// readTail fills p from off, which lies in the signature section: its
// manifest and signatures from what Open read, its chunk digests from the
// pages that hold them, each checked.
func (v *Verified) readTail(p []byte, off int64) (int, error) {
	n := 0
	if rel := off - v.end; rel < int64(len(v.tail)) {
		n = copy(p, v.tail[rel:])
	}
	if n == len(p) || v.pages == nil {
		return n, nil
	}
	per := int64(v.m.page) * sha256.Size
	for n < len(p) {
		at := off + int64(n) - v.pages.off
		pg := at / per
		b, err := v.page(pg)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], b[at-pg*per:])
	}
	return n, nil
}
