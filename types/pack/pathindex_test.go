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
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := bpx.NewWriter(&out)
	w.SetType(rd.Header.Type)
	w.SetTypeExt(rd.Header.TypeExt)
	for _, s := range rd.Sections {
		if s.Type != SectionObjectTable {
			if err := w.CopySection(s); err != nil {
				t.Fatal(err)
			}
			continue
		}
		table, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		edit(table)
		if err := w.WriteSection(s.Type, bpx.SectionOptions{Checksum: ck}, table); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
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
