package pack

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCmpPath(t *testing.T) {
	ordered := []string{"a", "a/b", "a/b/c", "a/b-c", "a/b.txt", "a/ba", "a-b", "a.txt", "b"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := cmpPath(ordered[i], ordered[j]); got != want && !(got < 0 && want < 0 || got > 0 && want > 0) {
				t.Errorf("cmpPath(%q, %q) = %d, want sign %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

// TestCleanNamesWalkOrder: the order Writer.AddFS stores a tree in (the
// order fs.WalkDir visits it) is recognized as clean.
func TestCleanNamesWalkOrder(t *testing.T) {
	m := fstest.MapFS{
		"a/b/c": {}, "a/b-c": {}, "a/b.txt": {}, "a/ba/x": {}, "a-b": {}, "z": {},
	}
	p := openBytes(t, pkgBytes(t, m))
	if !cleanNames(p.Objects(), 0) {
		var names []string
		for _, o := range p.Objects() {
			names = append(names, o.Name)
		}
		t.Fatalf("not clean: %q", names)
	}
}

// TestCleanNamesAgreesWithIndex: whenever cleanNames says clean, the full
// index finds nothing wrong, and each kind of problem defeats it.
func TestCleanNamesAgreesWithIndex(t *testing.T) {
	cases := []struct {
		names []string
		clean bool
	}{
		{[]string{"a", "b/c", "b/d"}, true},
		{[]string{"a/b/c", "a/b-c"}, true},
		{[]string{"a/b-c", "a/b/c"}, false}, // valid, but not in path order
		{[]string{"a", "a"}, false},
		{[]string{"a", "a/b"}, false},
		{[]string{"a", "a!", "a/b"}, false},
		{[]string{"../x"}, false},
		{[]string{""}, false},
		{[]string{"x/"}, false},
		{nil, true},
	}
	for _, c := range cases {
		objs := make([]Object, len(c.names))
		for i, n := range c.names {
			objs[i] = Object{Index: i, Name: n}
		}
		if got := cleanNames(objs, 0); got != c.clean {
			t.Errorf("cleanNames(%q) = %v, want %v", c.names, got, c.clean)
		}
		if bad := buildIndex(objs, 0).bad; cleanNames(objs, 0) && len(bad) != 0 {
			t.Errorf("%q: clean, but the index finds %v", c.names, bad)
		}
		p := &Package{objects: objs}
		want := buildIndex(objs, 0).bad
		if got := p.InvalidPaths(); !maps.Equal(got, want) {
			t.Errorf("%q: InvalidPaths = %v, index %v", c.names, got, want)
		}
	}
}

// TestScanNameAgreesWithIndex: whatever scanName proves to be a file, the
// index finds as that file, for names in any order and of any kind.
func TestScanNameAgreesWithIndex(t *testing.T) {
	sets := [][]string{
		{"a", "b/c", "b/d"},
		{"a/b-c", "a/b/c", "z"},
		{"a", "a"},
		{"a", "a/b"},
		{"a/b", "a"},
		{"a", "a!", "a/b"},
		{"../x", "x", "x/../y"},
		{"", "x/", "x"},
		{"long/name/here.txt", "long", "n"},
		{"b", "a", "c/d", "c/e", "c"},
	}
	for _, names := range sets {
		objs := make([]Object, len(names))
		for i, n := range names {
			objs[i] = Object{Index: i, Name: n}
		}
		p := &Package{objects: objs, cfg: config{maxPathLen: 12}}
		ix := buildIndex(objs, 12)
		for _, name := range append(slices.Clone(names), "a/b/c", "nope", "c/d/e") {
			if !fs.ValidPath(name) || name == "." {
				continue // lookup refuses it before
			}
			i, ok := p.scanName(name)
			if !ok {
				continue
			}
			if e, found := ix.lookup(name); !found || e.obj != i {
				t.Errorf("%q: scanName(%q) = object %d, the index %+v (%v)", names, name, i, e, found)
			}
		}
	}
	// It proves the common case.
	p := &Package{objects: []Object{{Name: "a"}, {Index: 1, Name: "b/c"}, {Index: 2, Name: "b/d"}}}
	if i, ok := p.scanName("b/c"); !ok || i != 1 {
		t.Errorf("scanName(b/c) = %d, %v", i, ok)
	}
}

// TestLookupCleanSkipsIndex: opening files of a package written by AddFS
// finds them without building the directory tree, and finds the same
// entries the tree has; directories and missing names still work.
func TestLookupCleanSkipsIndex(t *testing.T) {
	m := testTree()
	p := openBytes(t, pkgBytes(t, m))
	if !p.isClean() {
		t.Fatal("AddFS output not clean")
	}
	for name, f := range m {
		if f.Mode.IsDir() {
			continue
		}
		data, err := p.ReadFile(name)
		if err != nil || string(data) != string(f.Data) {
			t.Fatalf("ReadFile(%q) = %q, %v", name, data, err)
		}
	}
	if p.idx != nil {
		t.Fatal("reading files built the directory tree")
	}
	for name := range m {
		fast, ok := p.lookupClean(name)
		if !ok {
			continue
		}
		if slow, ok := p.index().lookup(name); !ok || slow != fast {
			t.Errorf("%q: binary search %+v, tree %+v", name, fast, slow)
		}
	}
	if _, err := p.Stat("no/such/file"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %v", err)
	}
}

// TestPathOrdered: a package written from a tree is path-ordered; one
// whose objects were created out of that order, or with an invalid name,
// is not. ComparePaths is the order.
func TestPathOrdered(t *testing.T) {
	write := func(names ...string) *Package {
		var buf bytes.Buffer
		w := NewWriter(&buf, AllowInvalidNames())
		for _, n := range names {
			f, err := w.Create(n)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte(n))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	for _, tt := range []struct {
		names []string
		want  bool
	}{
		{[]string{"a/b/c", "a/b-c", "a/b.txt", "b"}, true},
		{[]string{"a/b-c", "a/b/c"}, false}, // '/' sorts first
		{[]string{"a", "b", "b"}, false},    // a duplicate
		{[]string{"../x", "a"}, false},      // an invalid name
	} {
		if got := write(tt.names...).PathOrdered(); got != tt.want {
			t.Errorf("%q: PathOrdered %v, want %v", tt.names, got, tt.want)
		}
	}
	if ComparePaths("a/b", "a-b") >= 0 || ComparePaths("a-b", "a/b") <= 0 || ComparePaths("x", "x") != 0 {
		t.Error("ComparePaths does not sort '/' first")
	}
}

// TestMaxPathLength: with WithMaxPathLength, a longer name is an invalid
// path (listed by InvalidPaths, not in the tree, nor are the directories
// only it implies), still readable by index; without it, it is a path.
func TestMaxPathLength(t *testing.T) {
	long := "d/" + strings.Repeat("x", 200)
	b := pkgBytes(t, fstest.MapFS{"a": {Data: []byte("a")}, long: {Data: []byte("long")}, "z": {}})
	if p := openBytes(t, b); !p.PathOrdered() || len(p.InvalidPaths()) != 0 {
		t.Fatalf("without the option: ordered %v, invalid %v", p.PathOrdered(), p.InvalidPaths())
	}
	p := openBytes(t, b, WithMaxPathLength(len(long)-1))
	if p.PathOrdered() {
		t.Error("a name beyond the limit: still path-ordered")
	}
	bad := p.InvalidPaths()
	if len(bad) != 1 || !strings.Contains(bad[1], "path length limit") {
		t.Errorf("InvalidPaths = %v, want object 1", bad)
	}
	var seen []string
	fs.WalkDir(p, ".", func(name string, d fs.DirEntry, err error) error {
		seen = append(seen, name)
		return err
	})
	if strings.Join(seen, " ") != ". a z" {
		t.Errorf("tree %q, want . a z", seen)
	}
	if _, err := p.Stat(long); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of the long name: %v", err)
	}
	if data, err := p.ReadObject(1); err != nil || string(data) != "long" {
		t.Errorf("ReadObject(1) = %q, %v", data, err)
	}
	if p := openBytes(t, b, WithMaxPathLength(len(long))); !p.PathOrdered() {
		t.Error("a name at the limit is not a path")
	}
	if _, err := NewReader(bytes.NewReader(b), int64(len(b)), WithMaxPathLength(0)); err == nil {
		t.Error("WithMaxPathLength(0) accepted")
	}
}
