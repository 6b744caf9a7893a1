package pack

import (
	"container/heap"
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/gobpx/bpx"
)

// A package keeps within a section limit (WithMaxSections, by default
// bpx.ReferenceMaxSections, the most the reference SDK reads through a
// buffered reader) in three ways:
//
//   - AddFS knows the sizes of the files it adds, and grows the section
//     size for them (never below WithSectionSize) until they fit: a
//     package of T bytes gets sections of about T/336 bytes once that is
//     more than the section size (1 MiB up to about 336 MiB of data; then
//     3 MiB at 1 GiB, 30 MiB at 10 GiB). Such sections are written in
//     blocks of WithBlockSize (the default section size), so reading a
//     small object decodes its block, not its section (see blocks.go).
//   - The Editor joins the data it writes to a small last section of the
//     source (smaller than an eighth of the section size), so that a run
//     of small edits fills one section rather than adding one each, and
//     Compact (bpx repack) joins neighbouring sections that together fit
//     the section size.
//   - Whatever still needs more sections (objects written with Create, a
//     source package over the limit, many edits) has its smallest
//     neighbouring data sections joined at Close, re-encoded, until the
//     package fits.
//
// Joined sections are decoded and encoded again with the writer's
// options; every other section is copied byte for byte.

// tailJoin is the fraction of the section size below which the Editor
// joins the source's last data section to the data it writes: joining
// costs decoding and encoding that section again, at most an eighth of a
// section per edit.
const tailJoin = 8

// layoutSections returns how many data sections the Writer starts for
// objects of the given sizes and one class, written with CreateSized after
// the current section of that class (holding curSize bytes; open says
// whether objects may continue it), with section size sec and objects of
// at least large bytes alone. It follows Writer.route and writeData.
func layoutSections(sizes []int64, sec, large int64, open bool, curSize int64) int64 {
	var n int64
	for _, size := range sizes {
		big := size >= large
		if curSize > 0 && (big || curSize+size > sec) {
			open = false
		}
		if size > 0 {
			rest := size
			if open && curSize < sec {
				m := min(rest, sec-curSize)
				curSize += m
				rest -= m
			}
			if rest > 0 {
				k := (rest + sec - 1) / sec
				n += k
				curSize = rest - (k-1)*sec
				open = true
			}
		}
		if big {
			open = false
		}
	}
	return n
}

// layoutClasses is layoutSections for the objects of every stream,
// sizes[i] those of stream i (see streamOf), with the section size c.
func (w *Writer) layoutClasses(sizes [numStreams][]int64, c writerConfig) int64 {
	var n int64
	for i, cl := range []objClass{streamCompress: classCompress, streamStore: classStore, streamText: classText} {
		st := &w.streams[i]
		n += layoutSections(sizes[i], c.classSectionSize(cl), c.largeObject(cl), st.cur != nil, st.curSize)
	}
	return n
}

// growSectionSize raises the section size of w, if needed, so that
// objects of the given sizes fit in budget more data sections: to the
// smallest size that does, found by bisection (the count shrinks as the
// size grows, give or take a section at the edges, which Close's joining
// absorbs).
func (w *Writer) growSectionSize(sizes [numStreams][]int64, budget int64) {
	count := func(sec int64) int64 {
		c := w.cfg
		c.sectionSize = sec
		return w.layoutClasses(sizes, c)
	}
	if budget <= 0 || count(w.cfg.sectionSize) <= budget {
		return
	}
	lo, hi := w.cfg.sectionSize, int64(math.MaxUint32)
	if count(hi) > budget {
		w.cfg.sectionSize = hi
		return
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if count(mid) <= budget {
			hi = mid
		} else {
			lo = mid
		}
	}
	w.cfg.sectionSize = hi
}

// fitFiles grows the section size for files of fsys about to be added, so
// that they fit within the section limit alongside the sections the Writer
// has and others more (see growSectionSize). When they would not fit as
// they are, the files are classified first (see classifyFiles), so that
// stored and compressed sections are counted each at their size; else each
// file is classified as it is written, and read once.
func (w *Writer) fitFiles(fsys fs.FS, files []treeFile, others int) {
	m := w.cfg.contentSections()
	if m == 0 {
		return
	}
	// The object table, strings and metadata come first.
	budget := int64(m - 3 - others - len(w.order))
	var sizes [numStreams][]int64
	for _, f := range files {
		sizes[streamCompress] = append(sizes[streamCompress], f.size)
	}
	if budget > 0 && w.layoutClasses(sizes, w.cfg) <= budget {
		return
	}
	if w.classifies() {
		classifyFiles(fsys, files)
		sizes = [numStreams][]int64{}
		for _, f := range files {
			i := streamOf(f.class)
			sizes[i] = append(sizes[i], f.size)
		}
	}
	w.growSectionSize(sizes, budget)
}

// dataPart is one data section of a package being written, made from a
// section of a source: copied whole, or (sq != nil) only its live ranges.
type dataPart struct {
	s      *bpx.Section
	sq     *squeeze
	size   uint64 // bytes it contributes
	stored bool   // of stored sections (see classify.go): joined only with its kind, and stored raw
}

// dataPlan groups the data parts of a package into sections: each group
// of consecutive parts becomes one section. A group of one whole part is
// copied byte for byte; any other is encoded anew.
type dataPlan struct {
	parts []dataPart
	group []int    // group of each part
	base  []uint64 // offset of each part within its group
	n     int      // number of groups
}

// planData groups parts: first joining part i+1 to part i's group where
// join(i) allows it, both are of a kind (compressed or stored) and the
// group stays within sec[0] bytes (sec[1] for stored parts), then joining
// the two neighbouring groups of the smallest total size, of a kind while
// any are, until at most limit groups remain (limit 0: no limit). It fails
// with bpx.ErrTooLarge when the groups cannot fit limit sections of at most
// 4 GiB - 1 bytes.
func planData(parts []dataPart, sec [2]uint64, join func(i int) bool, limit int) (*dataPlan, error) {
	pl := &dataPlan{parts: parts, group: make([]int, len(parts)), base: make([]uint64, len(parts))}
	// size[g] of each group; starts[g] its first part.
	var size []uint64
	var starts []int
	for i, p := range parts {
		most := sec[0]
		if p.stored {
			most = sec[1]
		}
		if i > 0 && join(i-1) && parts[i-1].stored == p.stored && size[len(size)-1]+p.size <= most {
			size[len(size)-1] += p.size
			continue
		}
		size = append(size, p.size)
		starts = append(starts, i)
	}
	n := len(size)
	if limit > 0 && n > limit {
		// Groups as a linked list; candidate pairs (g, next g) in a heap,
		// stale ones skipped by their version.
		next, prev, ver := make([]int, n), make([]int, n), make([]int, n)
		stored := make([]bool, n) // a group of stored parts only
		for g := range n {
			next[g], prev[g] = g+1, g-1
			stored[g] = parts[starts[g]].stored
		}
		h := &pairHeap{}
		push := func(g int) {
			if nx := next[g]; nx < n && size[g]+size[nx] <= math.MaxUint32 {
				cross := stored[g] != stored[nx]
				heap.Push(h, pair{g: g, sum: size[g] + size[nx], cross: cross, vg: ver[g], vn: ver[nx]})
			}
		}
		for g := range n - 1 {
			push(g)
		}
		alive := n
		for alive > limit {
			if h.Len() == 0 {
				return nil, fmt.Errorf("pack: the data needs %d sections, more than the %d the section limit leaves (WithMaxSections): %w", alive, limit, bpx.ErrTooLarge)
			}
			p := heap.Pop(h).(pair)
			g := p.g
			nx := next[g]
			if nx >= n || p.vg != ver[g] || p.vn != ver[nx] {
				continue // stale
			}
			size[g] += size[nx]
			stored[g] = stored[g] && stored[nx]
			ver[g]++
			ver[nx] = -1
			next[g] = next[nx]
			if next[g] < n {
				prev[next[g]] = g
			}
			alive--
			push(g)
			if pg := prev[g]; pg >= 0 {
				push(pg)
			}
		}
		// Renumber the surviving groups.
		var ns []int
		for g := 0; g < n; g = next[g] {
			ns = append(ns, starts[g])
		}
		starts = ns
	}
	starts = append(starts, len(parts))
	for g := range len(starts) - 1 {
		var off uint64
		for i := starts[g]; i < starts[g+1]; i++ {
			pl.group[i], pl.base[i] = g, off
			off += parts[i].size
		}
	}
	pl.n = len(starts) - 1
	if limit > 0 && pl.n > limit {
		return nil, fmt.Errorf("pack: the data needs %d sections, more than the %d the section limit leaves (WithMaxSections): %w", pl.n, limit, bpx.ErrTooLarge)
	}
	return pl, nil
}

// pos returns where byte off of part i lands: its group and the offset in
// the group's section.
func (pl *dataPlan) pos(i int, off uint64) (int, uint64) {
	if sq := pl.parts[i].sq; sq != nil {
		off = sq.shift(off)
	}
	return pl.group[i], pl.base[i] + off
}

// write writes the groups as data sections of bw, new ones with opts.
func (pl *dataPlan) write(bw *bpx.Writer, opts bpx.SectionOptions) error {
	for i := 0; i < len(pl.parts); {
		j := i + 1
		for j < len(pl.parts) && pl.group[j] == pl.group[i] {
			j++
		}
		if j == i+1 && pl.parts[i].sq == nil {
			if err := bw.CopySection(pl.parts[i].s); err != nil {
				return err
			}
			i = j
			continue
		}
		o := opts
		if pl.storedGroup(i, j) {
			o = storedOptions(opts)
		}
		w, err := bw.CreateSection(SectionData, o)
		if err != nil {
			return err
		}
		for ; i < j; i++ {
			if err := pl.parts[i].copyTo(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedGroup reports whether parts i to j (exclusive) are all stored.
func (pl *dataPlan) storedGroup(i, j int) bool {
	for ; i < j; i++ {
		if !pl.parts[i].stored {
			return false
		}
	}
	return true
}

// copyTo writes the bytes the part contributes to w, streaming, and reads
// its section to the end so that its checksum is verified.
func (p *dataPart) copyTo(w io.Writer) error {
	r, err := p.s.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	live := [][2]uint64{{0, p.size}}
	if p.sq != nil {
		live = p.sq.live
	}
	var pos uint64
	for _, lr := range live {
		if _, err := io.CopyN(io.Discard, r, int64(lr[0]-pos)); err != nil {
			return fmt.Errorf("pack: re-encoding section %d: %w", p.s.Index, err)
		}
		if _, err := io.CopyN(w, r, int64(lr[1]-lr[0])); err != nil {
			return fmt.Errorf("pack: re-encoding section %d: %w", p.s.Index, err)
		}
		pos = lr[1]
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("pack: re-encoding section %d: %w", p.s.Index, err)
	}
	return nil
}

// pair is two neighbouring groups, g and the next, of total size sum;
// vg and vn are their versions when it was pushed.
type pair struct {
	g      int
	sum    uint64
	cross  bool // the groups are of different kinds: joined last
	vg, vn int
}

type pairHeap []pair

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].cross != h[j].cross {
		return !h[i].cross
	}
	if h[i].sum != h[j].sum {
		return h[i].sum < h[j].sum
	}
	return h[i].g < h[j].g
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pair)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
