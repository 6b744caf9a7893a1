package pack

import "sync"

// indexDigests are the objects' digests that a package's path index
// carries (flag 1 of SectionPathIndex), for VerifySection: a reader
// through the index checks an object against its entry's digest, so
// where SectionDigests is unusable (missing, stale, malformed) those are
// the digests a read meets.
type indexDigests struct {
	once sync.Once
	sums []uint32 // per object; nil: none
	has  []bool   // per object: the index lists it
}

// indexSums returns the digests the path index in use gives its objects
// and which objects it lists, or nil when it has none: no index in use,
// one without digests, or one that cannot be read (checkPathIndex
// reports that). Loaded once: the index's pages read through, 5 bytes
// kept per object.
func (p *Package) indexSums() ([]uint32, []bool) {
	m := &p.vmemo.index
	m.once.Do(func() { m.sums, m.has = p.loadIndexSums() })
	return m.sums, m.has
}

func (p *Package) loadIndexSums() ([]uint32, []bool) {
	ix, err := openPathIndex(p.Reader, p.cfg)
	if err != nil || ix == nil || ix.hdr.flags&pathIndexDigests == 0 {
		return nil, nil
	}
	sums, has := make([]uint32, len(p.objects)), make([]bool, len(p.objects))
	c := &pathCursor{p: p, ix: ix}
	defer c.close()
	for err = c.load(0, 0); err == nil && c.ok; err = c.next() {
		if int(c.e.obj) < len(sums) {
			sums[c.e.obj], has[c.e.obj] = c.e.sum, true
		}
	}
	if err != nil {
		return nil, nil
	}
	return sums, has
}
