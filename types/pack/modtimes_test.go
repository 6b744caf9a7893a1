package pack

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// timedTree is a tree whose files have times: two with the same bytes
// and different times, and one without a time.
func timedTree() fstest.MapFS {
	t0 := time.Date(2024, 5, 17, 10, 30, 0, 0, time.UTC)
	return fstest.MapFS{
		"a.txt":        {Data: []byte("alpha"), ModTime: t0},
		"dir/b.txt":    {Data: []byte("beta beta"), ModTime: t0.Add(90 * time.Second)},
		"dir/copy.txt": {Data: []byte("alpha"), ModTime: t0.Add(-48 * time.Hour)},
		"old.txt":      {Data: []byte("from 1969"), ModTime: time.Unix(-86400, 0)},
		"none.txt":     {Data: []byte("no time")},
	}
}

// checkTimes checks that every file of tree reads its time (to the
// second) from p.
func checkTimes(t *testing.T, what string, p *Package, tree fstest.MapFS) {
	t.Helper()
	for name, f := range tree {
		fi, err := fs.Stat(p, name)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := f.ModTime.Truncate(time.Second)
		if got := fi.ModTime(); !got.Equal(want) || got.IsZero() != want.IsZero() {
			t.Errorf("%s: %s: ModTime %v, want %v", what, name, got, want)
		}
	}
}

// TestModTimes: the files of a package have the times of the files packed
// (issue 43 item 3: every ModTime was zero), deduplicated files each their
// own, through the tables and through a path index, and an edit keeps
// them: the objects it keeps or renames theirs, the files it adds theirs,
// Create none.
func TestModTimes(t *testing.T) {
	tree := timedTree()
	for _, opts := range [][]WriterOption{nil, {WithPathIndex(true)}, {WithCompression(bpx.CompressNone)}} {
		b := pkgBytes(t, tree, opts...)
		p := openBytes(t, b)
		if p.Reader.FindSection(SectionModTimes) == nil {
			t.Fatalf("%v: no SectionModTimes", opts)
		}
		checkTimes(t, "written", p, tree)
		if fi, _ := fs.Stat(p, "dir"); !fi.ModTime().IsZero() {
			t.Errorf("a directory has the time %v", fi.ModTime())
		}
		// Unpack, and UnpackFS (bpx unpack -L), give the files they
		// write their times.
		for how, unpack := range map[string]func(string) error{
			"Unpack":   func(dir string) error { return p.Unpack(dir) },
			"UnpackFS": func(dir string) error { return UnpackFS(dir, p) },
		} {
			dir := t.TempDir()
			if err := unpack(dir); err != nil {
				t.Fatal(err)
			}
			for name, f := range tree {
				fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
				if err != nil {
					t.Fatal(err)
				}
				if !f.ModTime.IsZero() && !fi.ModTime().Equal(f.ModTime) {
					t.Errorf("%s: %s: ModTime %v, want %v", how, name, fi.ModTime(), f.ModTime)
				}
			}
		}

		var out bytes.Buffer
		e := NewEditor(&out, p)
		later := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		added := fstest.MapFS{"new/c.txt": {Data: []byte("gamma"), ModTime: later}, "new/alpha.txt": {Data: []byte("alpha"), ModTime: later.Add(time.Hour)}}
		if err := e.AddFS(added); err != nil {
			t.Fatal(err)
		}
		if err := e.Rename("dir/b.txt", "dir/renamed.txt"); err != nil {
			t.Fatal(err)
		}
		w, err := e.Create("created.txt")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("made by Create"))
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		want := fstest.MapFS{"created.txt": {}}
		for n, f := range tree {
			want[n] = f
		}
		want["dir/renamed.txt"] = want["dir/b.txt"]
		delete(want, "dir/b.txt")
		for n, f := range added {
			want[n] = f
		}
		checkTimes(t, "edited", openBytes(t, out.Bytes()), want)
	}
}

// TestModTimesNone: a package whose objects have no time (Create, a tree
// without times) has no SectionModTimes, and its files the zero time.
func TestModTimesNone(t *testing.T) {
	p := openBytes(t, pkgBytes(t, fstest.MapFS{"a": {Data: []byte("x")}}))
	if p.Reader.FindSection(SectionModTimes) != nil {
		t.Fatal("SectionModTimes written for objects without times")
	}
	if fi, err := fs.Stat(p, "a"); err != nil || !fi.ModTime().IsZero() {
		t.Fatalf("%v, %v", fi, err)
	}
}

// TestModTimesStale: times that do not describe the object table (a tool
// that reorders the table and copies the section as it is, or a section
// that is malformed) are not used: every file has the zero time, and
// reading is unaffected.
func TestModTimesStale(t *testing.T) {
	tree := timedTree()
	b := pkgBytes(t, tree)
	cases := map[string][]byte{
		"table reordered": testbpx.ReplaceSection(t, b, SectionObjectTable, bpx.ChecksumWeak, func(d []byte) []byte {
			first := bytes.Clone(d[:ObjectEntrySize])
			copy(d, d[ObjectEntrySize:2*ObjectEntrySize])
			copy(d[ObjectEntrySize:], first)
			return d
		}),
		"short":         testbpx.ReplaceSection(t, b, SectionModTimes, bpx.ChecksumWeak, func(d []byte) []byte { return d[:len(d)-1] }),
		"other version": testbpx.ReplaceSection(t, b, SectionModTimes, bpx.ChecksumWeak, func(d []byte) []byte { d[0] = 2; return d }),
		"other count": testbpx.ReplaceSection(t, b, SectionModTimes, bpx.ChecksumWeak, func(d []byte) []byte {
			binary.LittleEndian.PutUint32(d[8:], 4)
			return d
		}),
	}
	for what, b := range cases {
		p := openBytes(t, b)
		for name, f := range tree {
			fi, err := fs.Stat(p, name)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !fi.ModTime().IsZero() {
				t.Errorf("%s: %s has the time %v", what, name, fi.ModTime())
			}
			if got, err := fs.ReadFile(p, name); err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("%s: %s: %q, %v", what, name, got, err)
			}
		}
	}
}

// FuzzParseModTimes: any bytes parse to times or an error, never more
// times than objects, and marshalModTimes' output parses back.
func FuzzParseModTimes(f *testing.F) {
	table := []byte("table bytes")
	f.Add(marshalModTimes(table, []int64{1, noTime, -5}), 3)
	f.Add([]byte{1, 0, 0, 0}, 0)
	f.Add(make([]byte, modTimesHeaderSize), 0)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		times, err := parseModTimes(b, n, objectDigest(table))
		if err == nil && len(times) != n {
			t.Fatalf("%d times for %d objects", len(times), n)
		}
		if err == nil {
			if again := marshalModTimes(table, times); !bytes.Equal(again, b) {
				t.Fatalf("times %v marshal to other bytes", times)
			}
		}
	})
}

// TestModTimesPatch: a patch (WritePatch, bpx diff --patch) carries the
// times of the files it copies from the newer tree.
func TestModTimesPatch(t *testing.T) {
	a := timedTree()
	b := timedTree()
	later := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	b["dir/b.txt"] = &fstest.MapFile{Data: []byte("beta, changed"), ModTime: later}
	b["new.txt"] = &fstest.MapFile{Data: []byte("new"), ModTime: later.Add(time.Minute)}
	changes, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := WritePatch(w, a, b, changes); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkTimes(t, "patch", openBytes(t, buf.Bytes()), fstest.MapFS{"dir/b.txt": b["dir/b.txt"], "new.txt": b["new.txt"]})
}
