package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gobpx/bpx"
)

// boundsDirs is the number of directories of the packages of
// boundsPackages: boundsEntries/boundsDirs files each.
const (
	boundsEntries = 10_240
	boundsDirs    = 640
	boundsProbes  = 512 // the paths the benchmarks look up, every 20th
)

// boundsName returns the path of file i under prefix: the files of
// boundsPackages, 16 in each of 640 directories.
func boundsName(prefix string, i int) string {
	return prefix + fmt.Sprintf("/d%03d/f%05d", i%boundsDirs, i)
}

// longPrefix is a directory name that makes boundsName's paths exactly
// maxPathIndexKey bytes long: the longest an index holds.
var longPrefix = strings.Repeat("p", maxPathIndexKey-len(boundsName("", 0)))

// truthfulPackage writes a package of n small files named
// boundsName("gen", i) with its path index.
func truthfulPackage(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, WithPathIndex(true))
	for i := range n {
		ow, err := w.Create(boundsName("gen", i))
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprint(ow, i)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// hostilePrefix returns the directory under which hostilePackage(r) of a
// package of n files puts its paths: as long as a usable index of pages of
// r restart points can make them, within the largest page (maxPathPage)
// and the largest root (maxPathRoot, which holds every page's first path)
// a reader takes, and maxPathIndexKey.
func hostilePrefix(r, n int) string {
	pages := (n + 16*r - 1) / (16 * r)
	l := min(maxPathIndexKey, (maxPathPage-16*r*32)/r, (maxPathRoot-64)/pages-32)
	return strings.Repeat("p", l-len(boundsName("", 0)))
}

// hostilePackage returns the package truthful (of truthfulPackage) with
// its index replaced by one of as many entries whose paths are
// boundsName(hostilePrefix(r, n), i): every path as long as an index a
// reader uses can hold them, the same but for their last 8 to 12 bytes, in
// pages of 16r entries and r restart points (full paths). With r = 2 and
// 10,240 files: paths of 51 KiB, 320 pages of 103 KiB, a root of 16 MiB;
// with r = 3, paths of 34 KiB, 214 pages of 103 KiB. The index is well
// formed and bound to the tables, so readers use it, although it names
// other paths than the tables (as a crafted index may: only
// VerifyStructure finds that out).
//
// Its paths are not the tables' (true ones would take 500 MB of names), so
// that every entry would fail its check against its table row and drop
// the index at the first lookup: hostilePackage turns that check off
// (checkEntries) until the test ends, to measure and bound the search.
func hostilePackage(tb testing.TB, truthful []byte, r int) []byte {
	tb.Helper()
	checkEntries = false
	tb.Cleanup(func() { checkEntries = true })
	_, table, names, sums := indexSource(tb, truthful)
	n := len(table) / ObjectEntrySize
	prefix := hostilePrefix(r, n)
	// The files in ComparePaths order (as indexFiles would sort them),
	// directory by directory.
	files := make([]indexFile, 0, n)
	for d := range boundsDirs {
		for i := d; i < n; i += boundsDirs {
			files = append(files, indexFile{boundsName(prefix, i), uint32(i)})
		}
	}
	defer func(t, e int) { pathPageTarget, pathPageEntries = t, e }(pathPageTarget, pathPageEntries)
	pathPageTarget, pathPageEntries = maxPathPage, 16*r
	idx := makePathIndex(files, table, names, sums, bpx.ChecksumCRC32)
	return withIndex(tb, truthful, idx)
}

// boundsCase is a package of the benchmarks, with the prefix of its paths
// and the options it is opened with.
type boundsCase struct {
	name   string
	pkg    []byte
	prefix string
	opts   []Option
	perDir int // files in a directory: boundsEntries/boundsDirs unless set
}

var boundsBuilt struct {
	once  sync.Once
	cases []boundsCase
}

// boundsCases returns the packages the benchmarks read, built once: the
// truthful package of boundsEntries files, with the default cache (its
// index fits) and with a cache of one page, so that every lookup loads
// one; the hostile ones of r = 2 and r = 3 with the default cache (their
// 32 and 21 MB of pages do not fit: many lookups load a page), with a
// cache of one page, and with r = 2 in a cache that holds its pages (the
// search alone).
func boundsCases(tb testing.TB) []boundsCase {
	boundsBuilt.once.Do(func() {
		truthful := truthfulPackage(tb, boundsEntries)
		h2, h3 := hostilePackage(tb, truthful, 2), hostilePackage(tb, truthful, 3)
		p2, p3 := hostilePrefix(2, boundsEntries), hostilePrefix(3, boundsEntries)
		onePage := []Option{WithCacheSize(0)} // no page stays
		// The floor: the same names as hostile2's looked up through the
		// tables, the authority (no index), whose lookup costs the same
		// however many files the package has: only the files the
		// benchmarks look up, every 20th.
		var long bytes.Buffer
		w := NewWriter(&long, WithPathIndex(false))
		for i := 0; i < boundsEntries; i += boundsEntries / boundsProbes {
			ow, err := w.Create(boundsName(p2, i))
			if err != nil {
				tb.Fatal(err)
			}
			fmt.Fprint(ow, i)
		}
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		boundsBuilt.cases = []boundsCase{
			{"tables-long", long.Bytes(), p2, nil, 0}, // its probes' directories are whole
			{"truthful", truthful, "gen", nil, 0},
			{"truthful-cold", truthful, "gen", onePage, 0},
			{"hostile2", h2, p2, nil, 0},
			{"hostile3", h3, p3, nil, 0},
			{"hostile2-cold", h2, p2, onePage, 0},
			{"hostile2-warm", h2, p2, []Option{WithCacheSize(256 << 20)}, 0},
		}
	})
	return boundsBuilt.cases
}

// BenchmarkPathIndexBounds looks paths up (Stat, Open and Close, ReadDir
// of a directory of 16 files) through a truthful index of 10,240 ordinary
// paths and through a hostile one of 10,240 paths of 64 KiB sharing their
// prefix (hostilePackage), in the same run: issue 41 wants any index's
// lookups within 10x of a truthful index's of as many entries. 512 paths
// spread over the index are looked up in a scattered order; ns/op is per
// lookup.
func BenchmarkPathIndexBounds(b *testing.B) {
	const probes = boundsProbes
	for _, bc := range boundsCases(b) {
		perDir := bc.perDir
		if perDir == 0 {
			perDir = boundsEntries / boundsDirs
		}
		files := make([]string, probes)
		dirs := make([]string, probes)
		for k := range probes {
			i := k * (boundsEntries / probes)
			files[k] = boundsName(bc.prefix, i)
			dirs[k] = files[k][:strings.LastIndexByte(files[k], '/')]
		}
		ops := []struct {
			name string
			do   func(p *Package, k int) error
		}{
			{"stat", func(p *Package, k int) error { _, err := p.Stat(files[k]); return err }},
			{"open", func(p *Package, k int) error {
				f, err := p.Open(files[k])
				if err == nil {
					err = f.Close()
				}
				return err
			}},
			{"readdir", func(p *Package, k int) error {
				ents, err := p.ReadDir(dirs[k])
				if err == nil && len(ents) != perDir {
					err = fmt.Errorf("ReadDir(%.40q…): %d entries", dirs[k], len(ents))
				}
				return err
			}},
		}
		for _, op := range ops {
			b.Run(op.name+"/"+bc.name, func(b *testing.B) {
				p := openBytes(b, bc.pkg, bc.opts...)
				if (p.pidx.Load() == nil) != (bc.name == "tables-long") {
					b.Fatal("the index is used, or not, against the case's name")
				}
				for k := range probes { // the pages a warm cache holds
					if err := op.do(p, k); err != nil {
						b.Fatal(err)
					}
				}
				k := 0
				for b.Loop() {
					k = (k + 211) % probes
					if err := op.do(p, k); err != nil {
						b.Fatal(err)
					}
				}
				if p.pidx.Load() == nil && bc.name != "tables-long" {
					b.Fatal("the index was dropped")
				}
			})
		}
	}
}

// TestPathIndexLongPaths looks up, lists and reads every path of a hostile
// index (hostilePackage: paths of 64 KiB that differ in their last bytes,
// pages of 4 and 15 restart points): the index answers as its entries say
// (it names other paths than the tables: the tables cannot be the
// reference here), and paths near them are not there.
func TestPathIndexLongPaths(t *testing.T) {
	const n = 1000
	truthful := truthfulPackage(t, n)
	for _, r := range []int{2, 3} {
		longPrefix := hostilePrefix(r, n)
		p := openBytes(t, hostilePackage(t, truthful, r))
		if ix := p.pidx.Load(); ix == nil || len(ix.pages) < 3 {
			t.Fatalf("r=%d: the index is not used or has less than 3 pages", r)
		}
		for i := range n {
			name := boundsName(longPrefix, i)
			fi, err := p.Stat(name)
			if err != nil || fi.IsDir() || fi.Sys().(*Object).Index != i || fi.Sys().(*Object).Name != name {
				t.Fatalf("r=%d: Stat(path %d) = %v, %v", r, i, fi, err)
			}
			if b, err := p.ReadFile(name); err != nil || string(b) != fmt.Sprint(i) {
				t.Fatalf("r=%d: ReadFile(path %d) = %q, %v", r, i, b, err)
			}
			for _, near := range []string{name[:len(name)-1], name + "0", name + "/x", boundsName(longPrefix, i+n)} {
				if _, err := p.Stat(near); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("r=%d: Stat(%.20q…%q) = %v, want not there", r, near[:20], near[len(near)-12:], err)
				}
			}
		}
		for _, dir := range []string{longPrefix, longPrefix + "/d000", longPrefix + "/d639"} {
			if fi, err := p.Stat(dir); err != nil || !fi.IsDir() {
				t.Fatalf("r=%d: Stat(%.20q…) = %v, %v", r, dir, fi, err)
			}
		}
		for _, missing := range []string{longPrefix[:100], longPrefix + "q", longPrefix + "/d640", longPrefix + "/d00"} {
			if _, err := p.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("r=%d: Stat(%.20q…%q) = %v, want not there", r, missing, missing[len(missing)-5:], err)
			}
		}
		top, err := p.ReadDir(longPrefix)
		if err != nil || len(top) != boundsDirs {
			t.Fatalf("r=%d: ReadDir of the top directory: %d entries, %v", r, len(top), err)
		}
		for d, e := range top {
			if want := fmt.Sprintf("d%03d", d); e.Name() != want || !e.IsDir() {
				t.Fatalf("r=%d: entry %d of the top directory is %q (dir %v), want directory %q", r, d, e.Name(), e.IsDir(), want)
			}
			kids, err := p.ReadDir(longPrefix + "/" + e.Name())
			var want []string
			for i := d; i < n; i += boundsDirs {
				want = append(want, fmt.Sprintf("f%05d", i))
			}
			var got []string
			for _, k := range kids {
				got = append(got, k.Name())
			}
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("r=%d: ReadDir(%s) = %q, %v; want %q", r, e.Name(), got, err, want)
			}
		}
		if p.pidx.Load() == nil {
			t.Fatalf("r=%d: the index was dropped", r)
		}
	}
}

// randomPaths returns n paths of bytes that matter to the index's checks
// ('/', '.', a two-byte rune, a byte that is no UTF-8, NUL), sorted in
// ComparePaths order, with long runs in common and lengths across the
// word and block sizes commonPrefix uses.
func randomPaths(seed uint64, n int) []string {
	rnd := rand.New(rand.NewPCG(seed, 1))
	alphabet := []string{"a", "b", "/", ".", "é", "\xff", "\x00", strings.Repeat("x", 300)}
	out := make([]string, 0, n)
	prev := ""
	for range n {
		// Most paths start from a prefix of the one before.
		s := prev[:rnd.IntN(len(prev)+1)]
		if rnd.IntN(4) == 0 {
			s = ""
		}
		for k := rnd.IntN(6); k >= 0; k-- {
			s += alphabet[rnd.IntN(len(alphabet))]
		}
		out = append(out, s)
		prev = s
	}
	slices.SortFunc(out, cmpPath)
	return slices.Compact(out)
}

// TestPathOrderHelpers compares commonPrefix, pathAfter, pathAfterFrom
// and pathGE with the whole-path functions they stand for.
func TestPathOrderHelpers(t *testing.T) {
	paths := randomPaths(1, 3000)
	rnd := rand.New(rand.NewPCG(2, 2))
	for range 20000 {
		a, b := paths[rnd.IntN(len(paths))], paths[rnd.IntN(len(paths))]
		l := 0
		for l < min(len(a), len(b)) && a[l] == b[l] {
			l++
		}
		if got := commonPrefix(a, []byte(b)); got != l {
			t.Fatalf("commonPrefix(%q, %q) = %d, want %d", a, b, got, l)
		}
		after := cmpPath(a, b) < 0 && !below(b, a)
		if pathAfter(a, b) != after || pathAfterFrom(a[l:], b[l:], 0) != after {
			t.Fatalf("pathAfter(%q, %q) = %v, want %v", a, b, pathAfter(a, b), after)
		}
		if got := pathGE([]byte(a), b, l); got != (cmpPath(a, b) >= 0) {
			t.Fatalf("pathGE(%q, %q) = %v, want %v", a, b, got, !got)
		}
	}
}

// TestPathChecker checks runs of paths with pathChecker, each given as
// sharing a prefix with the one before up to what it really shares, as
// checkPage does, against validFile on the whole path.
func TestPathChecker(t *testing.T) {
	paths := randomPaths(3, 5000)
	rnd := rand.New(rand.NewPCG(4, 4))
	var v pathChecker
	prev := ""
	valid := 0
	for _, p := range paths {
		shared := rnd.IntN(commonPrefix(prev, p) + 1)
		got, want := v.valid([]byte(p), shared), validFile(p)
		if got != want {
			t.Fatalf("after %q, valid(%q, %d) = %v, validFile %v", prev, p, shared, got, want)
		}
		if !want { // checkPage stops at an invalid path: start again
			v, prev = pathChecker{}, ""
			continue
		}
		valid++
		prev = p
	}
	if valid < 100 {
		t.Fatalf("only %d valid paths of %d: the test needs more", valid, len(paths))
	}
}

// TestPathIndexLookupMemory: a lookup in a hostile index (paths of 52 KiB,
// pages of 104 KiB) allocates the path it returns and the page it loads,
// if any, and little else: with its pages in the cache, and with a cache
// of two pages, so that most lookups load one.
func TestPathIndexLookupMemory(t *testing.T) {
	const n, lookups = 1000, 20
	hostile := hostilePackage(t, truthfulPackage(t, n), 2)
	longPrefix := hostilePrefix(2, n)
	for _, c := range []struct {
		name  string
		cache int64
		bound uint64
	}{
		{"warm", 64 << 20, 2 * maxPathIndexKey},
		{"cold", 2 * maxPathPage, maxPathPage + 2*maxPathIndexKey},
	} {
		p := openBytes(t, hostile, WithCacheSize(c.cache))
		stat := func(i int) {
			if _, err := p.Stat(boundsName(longPrefix, i)); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			stat(i)
		}
		name := boundsName(longPrefix, 0) // made once: not counted
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for k := range lookups {
			i := k * 211 % n
			name = name[:len(name)-12] + boundsName("", i)
			if _, err := p.Stat(name); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		per := (after.TotalAlloc - before.TotalAlloc) / lookups
		if per > c.bound+maxPathIndexKey { // the probe's own name
			t.Errorf("%s: a lookup allocated %d bytes, more than %d", c.name, per, c.bound+maxPathIndexKey)
		}
		t.Logf("%s: %d bytes a lookup", c.name, per)
	}
}

// TestValidPath compares validPath and indexSlash with fs.ValidPath and
// strings.IndexByte on random paths and on the edge cases.
func TestValidPath(t *testing.T) {
	paths := append(randomPaths(5, 3000), "", ".", "..", "./a", "a/.", "a/..", "a/../b", "/a", "a/", "a//b",
		".a", "a..", "...", "a/.b/..c", "\xff", "é/\xe9", strings.Repeat("x", 100)+"/"+strings.Repeat(".", 2),
		strings.Repeat("ab/", 30)+"c", strings.Repeat("ab/", 30), longPrefix+"/d000/f00000")
	for _, p := range paths {
		if got, want := validPath(p), fs.ValidPath(p); got != want {
			t.Errorf("validPath(%q) = %v, fs.ValidPath %v", p, got, want)
		}
		if got, want := indexSlash(p), strings.IndexByte(p, '/'); got != want {
			t.Errorf("indexSlash(%q) = %d, want %d", p, got, want)
		}
	}
}

// TestPathIndexPageTooLarge: an index with a page larger than any writer
// writes (maxPathPage) is not used, whatever else it holds: the tables
// answer. (Before, a reader took pages of up to 1 MiB, which a lookup in
// a cold cache read and checked whole: 231 times a truthful lookup.)
func TestPathIndexPageTooLarge(t *testing.T) {
	const n = 8000 // about 140 KB of entries
	defer func(t int) { pathPageTarget = t }(pathPageTarget)
	for _, c := range []struct {
		target int
		used   bool
	}{{pathPageSize, true}, {maxPathPage - 4<<10, true}, {1 << 30, false}} {
		pathPageTarget = c.target
		b := truthfulPackage(t, n)
		pathPageTarget = pathPageSize
		p := openBytes(t, b)
		ix := p.pidx.Load()
		if used := ix != nil; used != c.used {
			t.Fatalf("pages closed at %d bytes: the index is used: %v, want %v", c.target, used, c.used)
		}
		if ix != nil {
			big := slices.MaxFunc(ix.pages, func(a, b pathPage) int { return int(a.size) - int(b.size) })
			if big.size > maxPathPage {
				t.Fatalf("a page of %d bytes is used", big.size)
			}
		}
		for _, i := range []int{0, n / 2, n - 1} {
			if b, err := p.ReadFile(boundsName("gen", i)); err != nil || string(b) != fmt.Sprint(i) {
				t.Fatalf("pages closed at %d bytes: ReadFile(%d) = %q, %v", c.target, i, b, err)
			}
		}
	}
}
