package pack

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestIndexOrderAndDirectories: directories whose names sort before "."
// ("-x", "!") still come before their contents, ReadDir is sorted by name,
// and every implied directory exists once.
func TestIndexOrderAndDirectories(t *testing.T) {
	m := fstest.MapFS{
		"-x/y":      {Data: []byte("1")},
		"!/z":       {Data: []byte("2")},
		"a/b/c":     {Data: []byte("3")},
		"a/b-c":     {Data: []byte("4")},
		"a/b.txt":   {Data: []byte("5")},
		"a/a/a/a/a": {Data: []byte("6")},
		"top":       {Data: []byte("7")},
	}
	p := openBytes(t, pkgBytes(t, m))
	if err := fstest.TestFS(p, "-x/y", "!/z", "a/b/c", "a/b-c", "a/b.txt", "a/a/a/a/a", "top"); err != nil {
		t.Fatal(err)
	}
	ents, err := p.ReadDir("a")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "a,b,b-c,b.txt" {
		t.Errorf("ReadDir(a) = %s", got)
	}
	ix := p.index()
	seen := map[string]bool{".": true}
	for _, e := range ix.entries {
		if !seen[e.dir] {
			t.Errorf("%s comes before its directory %s", e.name(), e.dir)
		}
		if e.obj < 0 {
			if seen[e.name()] {
				t.Errorf("directory %s twice", e.name())
			}
			seen[e.name()] = true
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := p.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	compareTrees(t, dir, writeTreeDir(t, m))
}

func writeTreeDir(t *testing.T, m fstest.MapFS) string {
	d := t.TempDir()
	writeTree(t, d, m)
	return d
}

// TestIndexDeepName: the index costs time linear in the names' length. A
// name of 300,000 levels makes 300,000 directories in a fraction of a
// second; keyed by whole paths it took minutes (quadratic hashing).
func TestIndexDeepName(t *testing.T) {
	const depth = 300000
	name := strings.Repeat("d/", depth) + "f"
	objs := []Object{{Name: name}, {Name: "d/d/g"}}
	ix := buildIndex(objs, 0)
	if len(ix.bad) != 0 {
		t.Fatalf("bad: %v", ix.bad)
	}
	if got, want := len(ix.entries), depth+2; got != want {
		t.Fatalf("%d entries, want %d", got, want)
	}
	e, ok := ix.lookup(name)
	if !ok || e.obj != 0 {
		t.Fatalf("lookup = %+v, %v", e, ok)
	}
	kids := ix.children("d/d")
	if len(kids) != 2 || kids[0].elem != "d" || kids[1].elem != "g" {
		t.Fatalf("children(d/d) = %+v", kids)
	}
	if _, ok := ix.lookup("d/x/f"); ok {
		t.Fatal("found a missing name")
	}
	if _, ok := ix.lookup("d/d/g/h"); ok {
		t.Fatal("found a name under a file")
	}
}
