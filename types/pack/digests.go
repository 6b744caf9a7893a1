package pack

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/gobpx/bpx"
)

// SectionDigests is the type of the section that holds a CRC-32C of every
// object's bytes, in object table order. The Writer and the Editor add it
// (after the strings and the metadata); other readers, the reference SDK
// among them, look sections up by type and pass over it.
//
// Why it exists: a section's checksum covers its whole decoded data, so a
// reader that checks it must decode the whole section (1 MiB by default)
// to hand out one small object. With the object's own digest a reader
// decodes the section only up to the object's end, checks the object and
// returns it: reading one object costs on average half the decoding. The
// section costs 4 bytes per object (0.2% of a package of Go source) and a
// CRC-32C per byte written (tens of GB/s with the instructions modern CPUs
// have for it).
//
// Layout, little-endian:
//
//	offset size
//	0      1     algorithm: 1 = CRC-32C (Castagnoli)
//	1      3     reserved, 0
//	4      4     CRC-32C of the object table section's decoded bytes
//	8      4     number of objects n
//	12     4·n   CRC-32C of each object's bytes, in object table order
//
// The digests count only for the object table they were written with: a
// tool that edits the package without knowing this section (and copies it
// as it is) leaves a table whose CRC-32C no longer matches, and readers
// then ignore the digests and check whole sections, as for a package
// without them. So does a section that is malformed or of another
// algorithm. A wrong digest in a valid section is a checksum error of its
// object.
const SectionDigests = 0xF1

// digestAlgCRC32C is the only algorithm of SectionDigests so far.
const digestAlgCRC32C = 1

// digestHeaderSize is the size of SectionDigests before the digests.
const digestHeaderSize = 12

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// objectDigest returns the CRC-32C of b.
func objectDigest(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// marshalDigests returns the SectionDigests bytes of digests for the object
// table table.
func marshalDigests(table []byte, digests []uint32) []byte {
	b := tableListHeader(digestAlgCRC32C, table, len(digests), 4)
	for _, d := range digests {
		b = binary.LittleEndian.AppendUint32(b, d)
	}
	return b
}

// tableListHeader returns the 12-byte header of a list of n entries of
// size bytes each, one per object of the object table table, with room
// for the entries: the kind byte, 3 bytes 0, the table's CRC-32C and n
// (see SectionDigests and SectionModTimes).
func tableListHeader(kind byte, table []byte, n, size int) []byte {
	b := make([]byte, 12, 12+size*n)
	b[0] = kind
	binary.LittleEndian.PutUint32(b[4:], objectDigest(table))
	binary.LittleEndian.PutUint32(b[8:], uint32(n))
	return b
}

// digestState is what a Package knows of its object digests, loaded at the
// first read that can use them.
type digestState struct {
	once sync.Once
	sums []uint32 // nil: none usable
	why  string   // why a SectionDigests present is not used
}

// digests returns the package's usable object digests, or nil.
func (p *Package) digests() []uint32 {
	p.load() // its error leaves no objects, hence no digests
	p.dig.once.Do(func() {
		p.dig.sums, p.dig.why = p.loadDigests()
	})
	return p.dig.sums
}

// loadDigests reads and checks SectionDigests. A missing section is no
// reason; a present one that cannot be used says why.
func (p *Package) loadDigests() ([]uint32, string) {
	if p.Revision != 2 {
		return nil, ""
	}
	ds := p.Reader.FindSection(SectionDigests)
	if ds == nil {
		return nil, ""
	}
	want := digestHeaderSize + 4*int64(len(p.objects))
	if size, ok := ds.DecodedSize(); !ok || size != want {
		return nil, fmt.Sprintf("section %d holds %d bytes, not the %d of %d objects' digests", ds.Index, size, want, len(p.objects))
	}
	b, err := ds.Data()
	if err != nil {
		return nil, fmt.Sprintf("section %d: %v", ds.Index, err)
	}
	if int64(len(b)) != want || b[0] != digestAlgCRC32C || b[1]|b[2]|b[3] != 0 || binary.LittleEndian.Uint32(b[8:]) != uint32(len(p.objects)) {
		return nil, fmt.Sprintf("section %d is not a CRC-32C digest list of %d objects", ds.Index, len(p.objects))
	}
	if p.tableSum != binary.LittleEndian.Uint32(b[4:]) {
		return nil, fmt.Sprintf("section %d was written for another object table (edited by a tool that does not know it)", ds.Index)
	}
	sums := make([]uint32, len(p.objects))
	for i := range sums {
		sums[i] = binary.LittleEndian.Uint32(b[digestHeaderSize+4*i:])
	}
	return sums, ""
}

// VerifySection decodes section i whole, checking its size and checksum,
// and the block map of an xz section of blocks (bpx.Section.Blocks, which
// readers decode blocks through). It checks the chunk digests of the
// chunks that start in its stored bytes, reading them again right after
// (see VerifyChunkDigests; of the chunk digests section itself, that its
// list parses). Of a data section it also checks the digest of every
// object that lies in it alone (the objects a reader may take from a
// section decoded only in part, or read alone from a section too large
// for the cache, those whose entry points at the very end of an earlier
// section among them): that of SectionDigests or, where those are
// unusable, that of the object's path index entry, which a reader
// through the index checks. A section too large for the cache is
// streamed, never held whole. Objects that span sections are checked by
// their sections' checksums only. Identical objects are checked once;
// objects that overlap each other are checked up to 16 times the
// section's size in all (a hostile table can make many), beyond which
// VerifySection reports them unchecked, as an error matching
// ErrObjectRange.
func (p *Package) VerifySection(i int) error {
	if i < 0 || i >= len(p.Reader.Sections) {
		return fmt.Errorf("pack: section index %d out of range [0, %d)", i, len(p.Reader.Sections))
	}
	s := p.Reader.Sections[i]
	_, berr := s.Blocks()
	err := p.verifySection(s)
	if cerr := p.verifyChunksIn(s); berr != nil || cerr != nil {
		err = errors.Join(berr, err, cerr)
	}
	if err != nil && s.Type == p.dataTyp {
		return p.sectionError(i, err)
	}
	return err
}

// verifySection is VerifySection but for the block map.
func (p *Package) verifySection(s *bpx.Section) error {
	if s.Type == SectionStreamDigests && p.Revision == 2 {
		return verifyStreamDigests(s)
	}
	if s.Type != p.dataTyp {
		return s.Verify() // no object is read from it
	}
	if err := p.load(); err != nil {
		return err
	}
	i := s.Index
	sums, has, what := p.digests(), []bool(nil), "digest"
	if sums == nil {
		sums, has = p.indexSums()
		what = "path index digest"
	}
	if sums == nil {
		return s.Verify() // no object is read from it in part
	}
	size := p.secSize[i]
	full := p.fullData()
	var spans []span
	for j := range p.objects {
		o := &p.objects[j]
		if o.Size == 0 || p.objErr[j] != nil || has != nil && !has[j] {
			continue
		}
		off := uint64(o.Offset)
		switch st := int(o.Start); {
		case st == i && off < size:
		case st < i && off == p.secSize[st] && p.Reader.Sections[st].Type == p.dataTyp && full[st+1] == i:
			off = 0 // at the very end of an earlier section: its first byte is here
		default:
			continue
		}
		if size-off >= o.Size {
			spans = append(spans, span{uint64(j), off, o.Size})
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.n, b.n), cmp.Compare(a.obj, b.obj))
	})
	c := spanCheck{p: p, sec: i, sums: sums, what: what, spans: spans, budget: 16 * max(size, 1<<20), list: p.streamList()}
	if p.accessMode(s) == accessCached {
		data, err := s.Data()
		if err != nil {
			return err
		}
		return c.feed(0, data)
	}
	rc, err := s.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	buf := make([]byte, 256<<10)
	for pos := uint64(0); ; {
		k, err := rc.Read(buf)
		if cerr := c.feed(pos, buf[:k]); cerr != nil {
			return cerr
		}
		pos += uint64(k)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// chunks checks the chunk digests of span a (SectionStreamDigests) over
// its bytes b, from offset at in the object, as each chunk ends.
func (c *spanCheck) chunks(a *activeSpan, at uint64, b []byte) error {
	log := c.list.log
	for len(b) > 0 {
		end := min((at>>log+1)<<log, a.n)
		k := min(uint64(len(b)), end-at)
		a.ccrc = crc32.Update(a.ccrc, castagnoli, b[:k])
		at, b = at+k, b[k:]
		if at == end {
			i := (at - 1) >> log
			if want := binary.LittleEndian.Uint32(a.cs[i*streamDigestSize:]); a.ccrc != want {
				return c.p.objectError(&c.p.objects[a.obj], fmt.Sprintf("bytes %d to %d: CRC-32C %#08x, its chunk digest (SectionStreamDigests) %#08x", i<<log, end, a.ccrc, want), bpx.ErrChecksum)
			}
			a.ccrc = 0
		}
	}
	return nil
}

// span is the bytes of object obj in its section.
type span struct{ obj, off, n uint64 }

// spanCheck computes the CRC-32C of spans, sorted by offset, over a
// section's bytes fed in order, and compares each with its object's
// digest in sums (what names them) as it ends.
type spanCheck struct {
	p      *Package
	sec    int
	sums   []uint32
	what   string
	spans  []span
	next   int // the first span not started
	active []activeSpan
	budget uint64      // bytes still to hash
	list   *streamList // the chunk digests of large stored objects, checked too
}

type activeSpan struct {
	span
	crc  uint32
	same []uint64 // objects of the same bytes, checked with it
	cs   []byte   // the span's chunk digests in SectionStreamDigests, if listed
	ccrc uint32   // CRC-32C of its current chunk so far
}

// feed takes the section's bytes b at offset pos.
func (c *spanCheck) feed(pos uint64, b []byte) error {
	end := pos + uint64(len(b))
	for ; c.next < len(c.spans) && c.spans[c.next].off < end; c.next++ {
		sp := c.spans[c.next]
		if n := len(c.active); n > 0 && c.active[n-1].off == sp.off && c.active[n-1].n == sp.n {
			c.active[n-1].same = append(c.active[n-1].same, sp.obj)
			continue
		}
		if sp.n > c.budget {
			return c.p.objectError(&c.p.objects[sp.obj], fmt.Sprintf("not checked: the objects of section %d overlap more than 16 times its size", c.sec), ErrObjectRange)
		}
		c.budget -= sp.n
		a := activeSpan{span: sp}
		if c.list != nil {
			a.cs = c.list.lookup(streamKey{c.sums[sp.obj], sp.n})
		}
		c.active = append(c.active, a)
	}
	kept := c.active[:0]
	for _, a := range c.active {
		lo, hi := max(a.off, pos), min(a.off+a.n, end)
		if lo < hi {
			a.crc = crc32.Update(a.crc, castagnoli, b[lo-pos:hi-pos])
			if a.cs != nil {
				if err := c.chunks(&a, lo-a.off, b[lo-pos:hi-pos]); err != nil {
					return err
				}
			}
		}
		if a.off+a.n > end {
			kept = append(kept, a)
			continue
		}
		for _, obj := range append(a.same, a.obj) {
			if want := c.sums[obj]; a.crc != want {
				return c.p.objectError(&c.p.objects[obj], fmt.Sprintf("CRC-32C %#08x, %s %#08x", a.crc, c.what, want), bpx.ErrChecksum)
			}
		}
	}
	c.active = kept
	return nil
}
