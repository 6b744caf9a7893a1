package pack

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// aheadTree is 60 files of 3000 bytes, which 8 KiB zlib sections hold about
// three at a time, some spanning two sections.
func aheadTree() fstest.MapFS {
	m := fstest.MapFS{}
	for i := range 60 {
		var b bytes.Buffer
		for b.Len() < 3000 {
			fmt.Fprintf(&b, "file %d line %d %x\n", i, b.Len(), uint32(i*b.Len())*2654435761)
		}
		m[fmt.Sprintf("f%03d", i)] = &fstest.MapFile{Data: b.Bytes()[:3000]}
	}
	return m
}

// aheadPackage opens the package of aheadTree and records the sections the
// cache reads ahead; call the returned function (after the reads) for
// them.
func aheadPackage(t *testing.T, b []byte, opts ...Option) (*Package, func() []int) {
	t.Helper()
	p := openBytes(t, b, opts...)
	var log []int
	p.cache.onAhead = func(sec int) {
		if p.cache.used+p.cache.aheadRes > p.cache.max {
			t.Errorf("read-ahead of section %d: %d bytes cached + %d reserved > budget %d", sec, p.cache.used, p.cache.aheadRes, p.cache.max)
		}
		log = append(log, sec)
	}
	return p, func() []int {
		p.cache.aheadWG.Wait()
		p.cache.mu.Lock()
		defer p.cache.mu.Unlock()
		return slices.Clone(log)
	}
}

// dataSections returns the table indices of p's data sections, in order.
func dataSections(p *Package) []int {
	var d []int
	for _, s := range p.Reader.SectionsOfType(SectionData) {
		d = append(d, s.Index)
	}
	return d
}

// objectsIn returns the objects whose bytes all lie in section sec.
func objectsIn(t *testing.T, p *Package, sec int) []int {
	t.Helper()
	var objs []int
	for i := range p.objects {
		segs, err := p.segments(&p.objects[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) == 1 && segs[0].sec == sec {
			objs = append(objs, i)
		}
	}
	if len(objs) == 0 {
		t.Fatalf("no object lies in section %d alone", sec)
	}
	return objs
}

func readObjects(t *testing.T, p *Package, m fstest.MapFS, objs ...int) {
	t.Helper()
	for _, i := range objs {
		got, err := p.ReadObject(i)
		if o := p.objects[i]; err != nil || !bytes.Equal(got, m[o.Name].Data) {
			t.Fatalf("ReadObject(%d) %s: %d bytes, %v", i, o.Name, len(got), err)
		}
	}
}

// TestReadAheadSequential: one reader reading every object in table order
// loads the first three data sections itself; the third follows two loads
// in order, so the ones after it are read ahead, and the first read of
// each section read ahead starts the next: every section from the 4th on
// is read ahead. Each section is decoded once.
func TestReadAheadSequential(t *testing.T) {
	m := aheadTree()
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	p, aheads := aheadPackage(t, b)
	d := dataSections(p)
	if len(d) < 9 {
		t.Fatalf("%d data sections, want at least 9", len(d))
	}
	all := make([]int, len(p.objects))
	for i := range all {
		all[i] = i
	}
	readObjects(t, p, m, all...)
	want := d[3:]
	if got := aheads(); !slices.Equal(got, want) {
		t.Errorf("read ahead sections %v, want %v", got, want)
	}
	if p.cache.loads != len(d) {
		t.Errorf("%d loads for %d data sections", p.cache.loads, len(d))
	}
}

// TestReadAheadParallel: two readers taking the objects in order, as
// BenchmarkReadAllParallel does, read right bytes, read ahead, and still
// decode each section once: a reader asking for the section being read
// ahead waits for it.
func TestReadAheadParallel(t *testing.T) {
	m := aheadTree()
	b := pkgBytes(t, m, WithCompression(bpx.CompressXZ), WithSectionSize(8192))
	for range 3 {
		p, aheads := aheadPackage(t, b)
		if err := readParallel(p, 2, func(names chan<- string) error {
			for _, n := range treeNames(m) {
				names <- n
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := aheads(); len(got) == 0 {
			t.Error("no read-ahead")
		}
		if d := dataSections(p); p.cache.loads != len(d) {
			t.Errorf("%d loads for %d data sections", p.cache.loads, len(d))
		}
	}
}

// TestReadAheadNotOnRandomAccess: sections visited in orders where no two
// in a row follow the one before trigger no read-ahead.
func TestReadAheadNotOnRandomAccess(t *testing.T) {
	m := aheadTree()
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	p0 := openBytes(t, b)
	d := dataSections(p0)
	reverse := slices.Clone(d)
	slices.Reverse(reverse)
	var stride []int // 0, 3, 6, ..., 1, 4, 7, ..., 2, 5, 8, ...
	for r := range 3 {
		for k := r; k < len(d); k += 3 {
			stride = append(stride, d[k])
		}
	}
	// Pairs in order, as random reads meet by chance: 5 6, 2 3, 0 1, 7 8...
	pairs := []int{d[5], d[6], d[2], d[3], d[0], d[1], d[7], d[8]}
	for _, order := range [][]int{reverse, stride, pairs} {
		p, aheads := aheadPackage(t, b)
		for _, sec := range order {
			readObjects(t, p, m, objectsIn(t, p, sec)...)
		}
		if got := aheads(); len(got) != 0 {
			t.Errorf("order %v: read ahead %v", order, got)
		}
		if p.cache.loads != len(order) {
			t.Errorf("order %v: %d loads", order, p.cache.loads)
		}
	}
}

// TestReadAheadError: a damaged section read ahead fails nobody but a
// reader of that section, and is loaded again (errors are not cached).
func TestReadAheadError(t *testing.T) {
	m := aheadTree()
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	p0 := openBytes(t, b)
	d := dataSections(p0)
	s := p0.Reader.Sections[d[3]]
	b[s.Pointer+uint64(s.StoredSize())/2] ^= 0x55

	p, aheads := aheadPackage(t, b)
	readObjects(t, p, m, objectsIn(t, p, d[0])...)
	readObjects(t, p, m, objectsIn(t, p, d[1])...)
	readObjects(t, p, m, objectsIn(t, p, d[2])...) // reads d[3] ahead
	readObjects(t, p, m, objectsIn(t, p, d[4])...)
	if got := aheads(); len(got) == 0 || got[0] != d[3] {
		t.Fatalf("read ahead %v, want section %d first", got, d[3])
	}
	loads := p.cache.loads
	for _, i := range objectsIn(t, p, d[3]) {
		_, err := p.ReadObject(i)
		if !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrFormat) {
			t.Errorf("ReadObject(%d) in the damaged section: %v, want ErrChecksum or ErrFormat", i, err)
		}
	}
	if p.cache.loads == loads {
		t.Error("the damaged section's error was cached")
	}
}

// TestReadAheadWithinBudget: with a cache of a few sections, readers in
// order still read ahead, within the budget (aheadPackage checks it at
// each start), and read right bytes.
func TestReadAheadWithinBudget(t *testing.T) {
	m := aheadTree()
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	p, aheads := aheadPackage(t, b, WithCacheSize(48<<10))
	all := make([]int, len(p.objects))
	for i := range all {
		all[i] = i
	}
	readObjects(t, p, m, all...)
	if got := aheads(); len(got) == 0 {
		t.Error("no read-ahead")
	}
	if CachedSections(p) > 6 {
		t.Errorf("%d sections cached in 48 KiB", CachedSections(p))
	}
	p.cache.mu.Lock()
	if p.cache.used > p.cache.max {
		t.Errorf("%d bytes cached, budget %d", p.cache.used, p.cache.max)
	}
	p.cache.mu.Unlock()
}

// TestCacheReaderWaitsForReadAhead: a reader asking for the section being
// read ahead waits for that load and gets its bytes; its own loader is not
// called.
func TestCacheReaderWaitsForReadAhead(t *testing.T) {
	c := newCache(1 << 20)
	c.maxAhead = 1 // section 3 holds the one read-ahead: no other starts
	gate := make(chan struct{})
	c.next = func(sec int) (int, int64, loader) {
		return sec + 1, 100, func(buf []byte) ([]byte, error) {
			if sec+1 == 3 {
				<-gate
			}
			return append(buf, byte(sec+1)), nil
		}
	}
	own := func(sec int) loader {
		return func(buf []byte) ([]byte, error) { return append(buf, byte(sec)), nil }
	}
	for sec := range 3 {
		e, err := c.get(sectionKey(sec), 100, own(sec), true)
		if err != nil {
			t.Fatal(err)
		}
		c.release(e)
	}
	c.mu.Lock()
	_, ok := c.entries[sectionKey(3)]
	c.mu.Unlock()
	if !ok {
		t.Fatal("section 3 is not being read ahead")
	}
	got := make(chan []byte)
	go func() {
		e, err := c.get(sectionKey(3), 100, func([]byte) ([]byte, error) { return nil, errors.New("loaded twice") }, true)
		if err != nil {
			t.Error(err)
			got <- nil
			return
		}
		got <- bytes.Clone(e.data)
		c.release(e)
	}()
	for { // until the reader waits on the entry
		c.mu.Lock()
		pins := c.entries[sectionKey(3)].pins
		c.mu.Unlock()
		if pins == 1 {
			break
		}
	}
	close(gate)
	if b := <-got; !bytes.Equal(b, []byte{3}) {
		t.Errorf("section 3 = %v, want [3]", b)
	}
	c.close()
	if c.loads != 4 {
		t.Errorf("%d loads, want 4", c.loads)
	}
}

// TestCacheErrorRecyclesOnce: a failed load's buffer goes back to the free
// list once; twice, two later loads would fill the same memory.
func TestCacheErrorRecyclesOnce(t *testing.T) {
	c := newCache(1 << 20)
	c.free = [][]byte{make([]byte, 0, 64)}
	_, err := c.get(sectionKey(0), 64, func(buf []byte) ([]byte, error) {
		return append(buf, 1, 2, 3), errors.New("damaged")
	}, true)
	if err == nil {
		t.Fatal("no error")
	}
	if len(c.free) != 1 {
		t.Fatalf("%d free buffers after one failed load into one, want 1", len(c.free))
	}
	var wg sync.WaitGroup
	for sec := 1; sec <= 2; sec++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := c.get(sectionKey(sec), 64, func(buf []byte) ([]byte, error) { return append(buf, byte(sec)), nil }, true)
			if err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(e.data, []byte{byte(sec)}) {
				t.Errorf("section %d = %v", sec, e.data)
			}
			c.release(e)
		}()
	}
	wg.Wait()
}

// TestUnpackNoReadAhead: Unpack's workers decode sections side by side;
// its readers do not read ahead.
func TestUnpackNoReadAhead(t *testing.T) {
	m := aheadTree()
	b := pkgBytes(t, m, WithCompression(bpx.CompressZlib), WithSectionSize(8192))
	p, aheads := aheadPackage(t, b)
	dir := t.TempDir()
	if err := p.Unpack(dir, WithUnpackConcurrency(1)); err != nil {
		t.Fatal(err)
	}
	if got := aheads(); len(got) != 0 {
		t.Errorf("Unpack read ahead %v", got)
	}
	if d := dataSections(p); p.cache.loads != len(d) {
		t.Errorf("%d loads for %d data sections", p.cache.loads, len(d))
	}
}
