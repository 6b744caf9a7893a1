package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// trickyNames are object names that test the path order and the view's
// rules: names that sort around "/", files that are also directories,
// names that are not valid paths.
var trickyNames = []string{
	"a", "a.b", "a/b", "a/b/c", "a-b/c", "a/b.c", "a/b-c/d",
	"file-and-dir", "file-and-dir/x",
	"../escape", "/abs", "trailing/", "", ".", "ok/./x",
	"z/y/x/w/v", "z/y/x/w/u", "z/y/x2", "z/y2",
	"caf\u00e9/\u4f60\u597d", "sp ace/t\tab",
}

// trickyPackage writes trickyNames (each object's content its name and
// number) and count generated files spread over directories.
func trickyPackage(t testing.TB, count int, opts ...WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, append([]WriterOption{AllowInvalidNames()}, opts...)...)
	add := func(i int, name string) {
		ow, err := w.Create(name)
		if err != nil {
			t.Fatalf("Create(%q): %v", name, err)
		}
		fmt.Fprintf(ow, "%s #%d", name, i)
	}
	for i, n := range trickyNames {
		add(i, n)
	}
	for i := range count {
		add(len(trickyNames)+i, fmt.Sprintf("gen/d%02d/e%d/f%05d.txt", i%37, i%3, i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tablesView opens b and makes it read through its tables only.
func tablesView(t testing.TB, b []byte) *Package {
	p := openBytes(t, b)
	p.dropIndex()
	if err := p.LoadTables(); err != nil {
		t.Fatal(err)
	}
	return p
}

// probes returns every name and directory of the objects of p, and
// paths near them that are neither.
func probes(p *Package) []string {
	seen := map[string]bool{".": true}
	var out []string
	add := func(n string) {
		if fs.ValidPath(n) && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, o := range p.Objects() {
		for n := o.Name; n != "." && n != "/" && n != ""; n = path.Dir(n) {
			add(n)
			add(n + "x")
			add(n + "/missing")
			if i := len(n) - 1; i > 0 {
				add(n[:i])
			}
		}
	}
	slices.Sort(out)
	return append([]string{"."}, out...)
}

// sameView checks that got (through its index) answers as want (through
// its tables) for every path of names.
func sameView(t *testing.T, got, want *Package, names []string) {
	t.Helper()
	for _, n := range names {
		gi, gerr := got.Stat(n)
		wi, werr := want.Stat(n)
		if (gerr == nil) != (werr == nil) || gerr != nil && errors.Is(gerr, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
			t.Fatalf("Stat(%q): index %v, tables %v", n, gerr, werr)
		}
		if gerr != nil {
			continue
		}
		if gi.Name() != wi.Name() || gi.IsDir() != wi.IsDir() || gi.Size() != wi.Size() || gi.Mode() != wi.Mode() {
			t.Fatalf("Stat(%q): index %v, tables %v", n, fs.FormatFileInfo(gi), fs.FormatFileInfo(wi))
		}
		if !gi.IsDir() {
			if g, w := gi.Sys().(*Object), wi.Sys().(*Object); g.Index != w.Index || g.Name != w.Name || g.Start != w.Start || g.Offset != w.Offset {
				t.Fatalf("Stat(%q): index object %+v, tables %+v", n, *g, *w)
			}
			gb, err1 := got.ReadFile(n)
			wb, err2 := want.ReadFile(n)
			if err1 != nil || err2 != nil || !bytes.Equal(gb, wb) {
				t.Fatalf("ReadFile(%q): index %q %v, tables %q %v", n, gb, err1, wb, err2)
			}
			continue
		}
		gd, err1 := got.ReadDir(n)
		wd, err2 := want.ReadDir(n)
		if err1 != nil || err2 != nil || dirString(gd) != dirString(wd) {
			t.Fatalf("ReadDir(%q):\nindex  %s %v\ntables %s %v", n, dirString(gd), err1, dirString(wd), err2)
		}
	}
}

func dirString(ents []fs.DirEntry) string {
	var sb strings.Builder
	for _, e := range ents {
		fi, _ := e.Info()
		fmt.Fprintf(&sb, "%s:%v:%d ", e.Name(), e.IsDir(), fi.Size())
	}
	return sb.String()
}

func TestPathIndexMatchesTables(t *testing.T) {
	for _, count := range []int{0, 5000} {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			b := trickyPackage(t, count, WithPathIndex(true))
			p := openBytes(t, b)
			if p.pidx.Load() == nil {
				t.Fatal("the package's path index is not used")
			}
			want := tablesView(t, b)
			if ix := p.pidx.Load(); count > 0 && len(ix.pages) < 2 {
				t.Fatalf("%d pages: the test needs several", len(ix.pages))
			}
			names := probes(want)
			sameView(t, p, want, names)
			if p.objects != nil {
				t.Error("lookups through the index read the object table")
			}
			if p.pidx.Load() == nil {
				t.Error("the index was dropped")
			}
			// The same through a package that read its tables.
			if err := p.LoadTables(); err != nil {
				t.Fatal(err)
			}
			sameView(t, p, want, names)
			var files []string
			for _, n := range names {
				if fi, err := want.Stat(n); err == nil && !fi.IsDir() {
					files = append(files, n)
				}
			}
			if count > 0 {
				return // fstest takes a millisecond a file
			}
			if err := fstest.TestFS(openBytes(t, b), files...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPathIndexDefault(t *testing.T) {
	small := trickyPackage(t, 10)
	if openBytes(t, small).Reader.FindSection(SectionPathIndex) != nil {
		t.Error("a package of small tables got a path index")
	}
	if b := trickyPackage(t, 10, WithPathIndex(false)); openBytes(t, b).Reader.FindSection(SectionPathIndex) != nil {
		t.Error("WithPathIndex(false) wrote a path index")
	}
	// 40,000 names of 30 bytes: 2 MB of tables.
	big := trickyPackage(t, 40_000)
	p := openBytes(t, big)
	s := p.Reader.FindSection(SectionPathIndex)
	if s == nil || s.Index != 0 || p.pidx.Load() == nil {
		t.Fatalf("a package of %d objects has no usable path index first", 40_000)
	}
	for _, typ := range []uint8{SectionObjectTable, SectionStrings} {
		if ts := p.Reader.FindSection(typ); ts.Flags&bpx.FlagCRC32 == 0 || ts.Flags&bpx.FlagWeak != 0 {
			t.Errorf("table section %d: flags %#x, want CRC32", typ, ts.Flags)
		}
	}
	b, err := p.ReadFile("gen/d02/e2/f39962.txt")
	if string(b) != fmt.Sprintf("gen/d02/e2/f39962.txt #%d", len(trickyNames)+39962) || err != nil {
		t.Fatalf("ReadFile: %q, %v", b, err)
	}
	if p.objects != nil {
		t.Error("ReadFile read the object table")
	}
}

// TestPathIndexNotWithRepeatedNames: the view keeps the directory of a
// repeated name (and no file of that name), which an index cannot show:
// such a package gets none.
func TestPathIndexNotWithRepeatedNames(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, AllowInvalidNames(), WithPathIndex(true))
	for _, n := range []string{"dir/dup", "dir/dup", "x"} {
		if _, err := w.Create(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := openBytes(t, buf.Bytes())
	if p.Reader.FindSection(SectionPathIndex) != nil {
		t.Fatal("a package with a repeated name got a path index")
	}
	if fi, err := p.Stat("dir"); err != nil || !fi.IsDir() {
		t.Fatalf("Stat(dir) = %v, %v", fi, err)
	}
}

// rebuildTables writes b again with its object table changed by edit and
// the table stored with checksum ck, every other section as it was: what
// a tool that knows nothing of the path index does.
func rebuildTables(t *testing.T, b []byte, ck bpx.Checksum, edit func(table []byte)) []byte {
	t.Helper()
	return replaceSection(t, b, SectionObjectTable, ck, func(table []byte) []byte { edit(table); return table })
}

// replaceSection writes b again with the data of its section of type typ
// replaced by what change makes of it, stored raw with checksum ck, every
// other section copied as it is.
func replaceSection(t testing.TB, b []byte, typ uint8, ck bpx.Checksum, change func([]byte) []byte) []byte {
	t.Helper()
	return testbpx.ReplaceSection(t, b, typ, ck, change)
}

// TestPathIndexStale swaps the names of two objects in the object table,
// as a tool that edits without knowing the index would: the index, now
// wrong, must not be used, with either checksum.
func TestPathIndexStale(t *testing.T) {
	b := trickyPackage(t, 100, WithPathIndex(true))
	for _, ck := range []bpx.Checksum{bpx.ChecksumWeak, bpx.ChecksumCRC32} {
		v, u := slices.Index(trickyNames, "z/y/x/w/v"), slices.Index(trickyNames, "z/y/x/w/u")
		swapped := rebuildTables(t, b, ck, func(table []byte) {
			e0, e1 := table[v*ObjectEntrySize+8:][:4], table[u*ObjectEntrySize+8:][:4]
			var tmp [4]byte
			copy(tmp[:], e0)
			copy(e0, e1)
			copy(e1, tmp[:])
		})
		p := openBytes(t, swapped)
		if p.pidx.Load() != nil {
			t.Fatalf("checksum %v: a stale index is used", ck)
		}
		got, err := p.ReadFile("z/y/x/w/v")
		if want := fmt.Sprintf("z/y/x/w/u #%d", u); err != nil || string(got) != want {
			t.Fatalf("checksum %v: ReadFile(z/y/x/w/v) = %q, %v; want %q", ck, got, err, want)
		}
		sameView(t, p, tablesView(t, swapped), probes(p))
	}
}

// TestPathIndexDamage damages the index in each of its parts: a package
// whose index is damaged reads as through its tables, and never fails
// because of it.
func TestPathIndexDamage(t *testing.T) {
	b := trickyPackage(t, 3000, WithPathIndex(true))
	want := tablesView(t, b)
	names := probes(want)
	s := want.Reader.FindSection(SectionPathIndex)
	ix, err := openPathIndex(want.Reader, config{})
	if err != nil || ix == nil {
		t.Fatal(ix, err)
	}
	base := int64(s.Pointer)
	for _, at := range []int64{
		3,                                    // header
		pathIndexHeaderSize + 5,              // root
		int64(ix.pages[0].off) + 1,           // first page
		int64(ix.pages[len(ix.pages)-1].off), // last page
		int64(ix.pages[1].off) + int64(ix.pages[1].size) - 2, // a restart table
	} {
		d := bytes.Clone(b)
		d[base+at] ^= 0x40
		p := openBytes(t, d, WithReaderOptions(bpx.SkipChecksums()))
		sameView(t, p, want, names)
		if p.pidx.Load() != nil {
			t.Errorf("byte %d of the index damaged: the index is still used", at)
		}
	}
	// Cut short by the end of the file: a package that fails anyway, but
	// opening it must not fail on the index.
	cut := b[:base+int64(ix.pages[0].off)+10]
	if _, err := NewReader(bytes.NewReader(cut), int64(len(cut))); err != nil && !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut: %v", err)
	}
}

// BenchmarkPathIndexStat looks files up through the index, against the
// same lookups through the tables (sub-benchmark tables).
func BenchmarkPathIndexStat(b *testing.B) {
	pkg := trickyPackage(b, 100_000, WithPathIndex(true))
	for _, mode := range []string{"index", "tables"} {
		b.Run(mode, func(b *testing.B) {
			p := openBytes(b, pkg)
			if mode == "tables" {
				p.dropIndex()
			}
			i := 0
			for b.Loop() {
				i = (i + 7919) % 100_000
				if _, err := p.Stat(fmt.Sprintf("gen/d%02d/e%d/f%05d.txt", i%37, i%3, i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// withIndex returns b with its path index section replaced by index, the
// other sections as they are.
func withIndex(t testing.TB, b, index []byte) []byte {
	t.Helper()
	return replaceSection(t, b, SectionPathIndex, bpx.ChecksumWeak, func([]byte) []byte { return index })
}

// lyingIndex returns the index of the package b made with the objects of
// names a and c exchanged: well formed and bound to the tables, but wrong.
func lyingIndex(t testing.TB, b []byte, a, c string) []byte {
	t.Helper()
	files, table, names, sums := indexSource(t, b)
	ia := slices.IndexFunc(files, func(f indexFile) bool { return f.name == a })
	ic := slices.IndexFunc(files, func(f indexFile) bool { return f.name == c })
	files[ia].obj, files[ic].obj = files[ic].obj, files[ia].obj
	return makePathIndex(files, table, names, sums, bpx.ChecksumCRC32)
}

// indexSource returns what the path index of package b is made of: its
// files, its object table and strings, and its digests (nil if none).
func indexSource(t testing.TB, b []byte) (files []indexFile, table, names []byte, sums []uint32) {
	t.Helper()
	p := tablesView(t, b)
	ot, st := p.Reader.FindSection(SectionObjectTable), p.Reader.FindSection(SectionStrings)
	table, err := ot.Data()
	if err != nil {
		t.Fatal(err)
	}
	names, err = st.Data()
	if err != nil {
		t.Fatal(err)
	}
	files, ok := indexFiles(len(table)/ObjectEntrySize, tableNames(table, names))
	if !ok {
		t.Fatal("no index")
	}
	return files, table, names, p.digests()
}

// TestVerifyFindsLyingIndex: an index bound to the tables that gives
// other objects than they do is read as it is (a crafted file), and
// VerifyStructure ("bpx verify") reports it.
func TestVerifyFindsLyingIndex(t *testing.T) {
	b := trickyPackage(t, 100, WithPathIndex(true))
	if err := openBytes(t, b).VerifyStructure(); err != nil && !errors.Is(err, ErrInsecurePath) {
		t.Fatalf("VerifyStructure of the package as written: %v", err)
	}
	lie := withIndex(t, b, lyingIndex(t, b, "a.b", "z/y2"))
	p := openBytes(t, lie)
	if p.pidx.Load() == nil {
		t.Fatal("the lying index is not used")
	}
	err := p.VerifyStructure()
	if !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), "path index") {
		t.Fatalf("VerifyStructure = %v, want a path index error", err)
	}
}

// FuzzPathIndex replaces the path index of a package of many small pages
// by the input, given a header bound to the package's tables and with the
// index's CRC-32C checks off, so that the fuzzer reaches the parsers. No
// input may make a reader panic, hang or fail because of the index, and
// whenever the index answers otherwise than the tables, VerifyStructure
// must say so.
func FuzzPathIndex(f *testing.F) {
	defer func(n int) { pathPageTarget = n }(pathPageTarget)
	pathPageTarget = 300
	base := trickyPackage(f, 200, WithPathIndex(true))
	want := tablesView(f, base)
	names := probes(want)
	idx, err := want.Reader.FindSection(SectionPathIndex).Data()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(idx)
	f.Add(lyingIndex(f, base, "a.b", "z/y2"))
	f.Add(idx[:pathIndexHeaderSize+40])
	f.Fuzz(func(t *testing.T, index []byte) {
		defer func(on bool) { pathIndexCRC = on }(pathIndexCRC)
		pathIndexCRC = false
		if len(index) >= pathIndexHeaderSize {
			index = bytes.Clone(index)
			copy(index[32:64], idx[32:64]) // bound to the tables
		}
		pkg := withIndex(t, base, index)
		p, err := NewReader(bytes.NewReader(pkg), int64(len(pkg)))
		if err != nil {
			t.Fatalf("NewReader: %v", err)
		}
		same := true
		for _, n := range names {
			gi, gerr := p.Stat(n)
			wi, werr := want.Stat(n)
			if (gerr == nil) != (werr == nil) {
				same = false
				continue
			}
			if gerr != nil {
				continue
			}
			if gi.IsDir() != wi.IsDir() || gi.Size() != wi.Size() {
				same = false
				continue
			}
			if gi.IsDir() {
				gd, err1 := p.ReadDir(n)
				wd, _ := want.ReadDir(n)
				same = same && err1 == nil && dirString(gd) == dirString(wd)
				continue
			}
			if gi.Sys().(*Object).Index != wi.Sys().(*Object).Index {
				same = false
			}
			gb, err := p.ReadFile(n)
			wb, _ := want.ReadFile(n)
			if err == nil && !bytes.Equal(gb, wb) {
				same = false
			}
		}
		if !same {
			if err := p.VerifyStructure(); err == nil || !strings.Contains(err.Error(), "path index") {
				t.Fatalf("the index answers otherwise than the tables, and VerifyStructure = %v", err)
			}
		}
	})
}

// TestPathIndexAfterEdit edits a package with an index (add, replace,
// remove, rename a file and a directory): the result's index is made
// anew, used, and agrees with its tables on every path, changed or not.
func TestPathIndexAfterEdit(t *testing.T) {
	b := trickyPackage(t, 2000, WithPathIndex(true))
	src := openBytes(t, b)
	var out bytes.Buffer
	ed := NewEditor(&out, src)
	write := func(name, data string) {
		w, err := ed.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, data)
	}
	write("gen/d00/e0/new.txt", "new")
	write("a.b", "replaced")
	for _, err := range []error{
		ed.Remove("gen/d01/e1/f00001.txt"),
		ed.Remove("gen/d02"),
		ed.Rename("gen/d03/e0/f00114.txt", "renamed/file"),
		ed.Rename("gen/d04", "moved/d04"),
		ed.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := openBytes(t, out.Bytes())
	if got.pidx.Load() == nil {
		t.Fatal("the edited package has no usable index")
	}
	want := tablesView(t, out.Bytes())
	names := probes(want)
	for _, n := range []string{"gen/d00/e0/new.txt", "a.b", "gen/d01/e1/f00001.txt", "gen/d02", "gen/d03/e0/f00114.txt", "renamed/file", "gen/d04", "moved/d04/e1/f00004.txt"} {
		names = append(names, n)
	}
	sameView(t, got, want, names)
	if b, err := got.ReadFile("moved/d04/e1/f00004.txt"); err != nil || string(b) != fmt.Sprintf("gen/d04/e1/f00004.txt #%d", len(trickyNames)+4) {
		t.Errorf("a renamed file: %q, %v", b, err)
	}
	if err := openBytes(t, out.Bytes()).VerifyStructure(); err != nil && !errors.Is(err, ErrInsecurePath) {
		t.Errorf("VerifyStructure: %v", err)
	}
}

// FuzzPathIndexNames writes a package of the input's names (one a line,
// at most 200) with a path index of small pages, and compares every path
// through the index with the tables: the writer's choice of files and its
// order must be the fs.FS view's, whatever the names.
func FuzzPathIndexNames(f *testing.F) {
	defer func(n int) { pathPageTarget = n }(pathPageTarget)
	pathPageTarget = 100
	f.Add(strings.Join(trickyNames, "\n"))
	f.Add("a\na/b\na.b\na-b/c\nab\na/b/c/d\na/bc\n")
	f.Add("x/y\nx/y/z\nx\nx!/q\nx/y!\n\u00e9/\u00e8\n")
	f.Fuzz(func(t *testing.T, list string) {
		pathPageTarget = 100
		names := strings.Split(list, "\n")
		if len(names) > 200 {
			names = names[:200]
		}
		var buf bytes.Buffer
		w := NewWriter(&buf, AllowInvalidNames(), WithPathIndex(true))
		for i, n := range names {
			ow, err := w.Create(n)
			if err != nil {
				continue // NUL, invalid UTF-8: not a name
			}
			fmt.Fprint(ow, i)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p := openBytes(t, buf.Bytes())
		if p.pidx.Load() == nil {
			return // repeated names: no index
		}
		want := tablesView(t, buf.Bytes())
		sameView(t, p, want, probes(want))
		if p.pidx.Load() == nil {
			t.Fatal("the index written was dropped")
		}
		if err := openBytes(t, buf.Bytes()).checkPathIndex(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPathIndexConcurrent looks paths up and lists directories from many
// goroutines at once, some while another loads the tables (go test -race).
func TestPathIndexConcurrent(t *testing.T) {
	b := trickyPackage(t, 3000, WithPathIndex(true))
	p := openBytes(t, b, WithCacheSize(64<<10))
	want := tablesView(t, b)
	names := probes(want)
	done := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := g; i < len(names); i += 8 {
				n := names[i]
				fi, err := p.Stat(n)
				wi, werr := want.Stat(n)
				if (err == nil) != (werr == nil) || err == nil && fi.Size() != wi.Size() {
					done <- fmt.Errorf("Stat(%q): %v, tables %v", n, err, werr)
					return
				}
				if err == nil && fi.IsDir() {
					if _, err := p.ReadDir(n); err != nil {
						done <- err
						return
					}
				}
				if g == 0 && i == 800 {
					p.LoadTables()
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
