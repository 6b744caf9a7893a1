package explorer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx/types/pack"
)

// listTree is a package for the listing tests.
func listTree(t testing.TB) *Server {
	return newServer(t, []File{file("p.bpx", packBytes(t, map[string]string{
		"B.txt": "bb", "a.png": "a", "zdir/x.blk": "x", "Adir/y.bo3d": "yy", "Adir/sub/z.lua": "zzz",
		"c.bpx": "c", "d.JPEG": "d", "e": "e", "f.md": "f", "g.bin": "g",
	}, nil))})
}

// names lists the paths of entries.
func names(l listAnswer) string {
	var p []string
	for _, e := range l.Entries {
		p = append(p, e.Path)
	}
	return strings.Join(p, " ")
}

// TestListOrderAndKinds: directories first, then files, each by byte
// order; kinds come from the names.
func TestListOrderAndKinds(t *testing.T) {
	s := listTree(t)
	got := jsonOf(t, s, "/api/list?dir=")
	want := `{"dir":"","offset":0,"limit":500,"total":9,"next":9,"entries":[` +
		`{"name":"Adir","path":"Adir","dir":true,"size":0,"kind":"dir"},` +
		`{"name":"zdir","path":"zdir","dir":true,"size":0,"kind":"dir"},` +
		`{"name":"B.txt","path":"B.txt","dir":false,"size":2,"kind":"text"},` +
		`{"name":"a.png","path":"a.png","dir":false,"size":1,"kind":"image"},` +
		`{"name":"c.bpx","path":"c.bpx","dir":false,"size":1,"kind":"bpx"},` +
		`{"name":"d.JPEG","path":"d.JPEG","dir":false,"size":1,"kind":"image"},` +
		`{"name":"e","path":"e","dir":false,"size":1,"kind":"file"},` +
		`{"name":"f.md","path":"f.md","dir":false,"size":1,"kind":"text"},` +
		`{"name":"g.bin","path":"g.bin","dir":false,"size":1,"kind":"file"}]}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	got = jsonOf(t, s, "/api/list?dir=Adir")
	want = `{"dir":"Adir","offset":0,"limit":500,"total":2,"next":2,"entries":[` +
		`{"name":"sub","path":"Adir/sub","dir":true,"size":0,"kind":"dir"},` +
		`{"name":"y.bo3d","path":"Adir/y.bo3d","dir":false,"size":2,"kind":"bo3d"}]}`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	var l listAnswer
	getJSON(t, s, "/api/list?dir=zdir", 200, &l)
	if names(l) != "zdir/x.blk" || l.Entries[0].Kind != "blk" {
		t.Errorf("zdir: %+v", l)
	}
}

// TestListPaging: offset and limit cut pages; past the end is empty.
func TestListPaging(t *testing.T) {
	s := listTree(t)
	var l listAnswer
	getJSON(t, s, "/api/list?offset=1&limit=3", 200, &l)
	if l.Total != 9 || l.Offset != 1 || l.Limit != 3 || names(l) != "zdir B.txt a.png" {
		t.Errorf("page: %+v", l)
	}
	getJSON(t, s, "/api/list?offset=7&limit=5", 200, &l)
	if names(l) != "f.md g.bin" {
		t.Errorf("last page: %s", names(l))
	}
	getJSON(t, s, "/api/list?offset=99", 200, &l)
	if l.Total != 9 || len(l.Entries) != 0 || l.Entries == nil {
		t.Errorf("past the end: %+v", l)
	}
	getJSON(t, s, "/api/list?limit=5000", 200, &l)
	wantError(t, s, "/api/list?limit=5001", 400, "limit")
	wantError(t, s, "/api/list?limit=-1", 400, "limit")
	wantError(t, s, "/api/list?offset=x", 400, "offset")
}

// TestListFilter: q keeps names containing it in any case; deep=1 keeps
// every file below dir whose path below it contains q, by path.
func TestListFilter(t *testing.T) {
	s := listTree(t)
	var l listAnswer
	getJSON(t, s, "/api/list?q=D", 200, &l)
	if l.Total != 4 || names(l) != "Adir zdir d.JPEG f.md" {
		t.Errorf("q=D: %+v", l)
	}
	getJSON(t, s, "/api/list?q=D&offset=3", 200, &l)
	if l.Total != 4 || names(l) != "f.md" {
		t.Errorf("q=D page 2: %+v", l)
	}
	got := jsonOf(t, s, "/api/list?q=dir&deep=1")
	want := `{"dir":"","offset":0,"limit":500,"total":3,"next":3,"entries":[` +
		`{"name":"z.lua","path":"Adir/sub/z.lua","dir":false,"size":3,"kind":"text"},` +
		`{"name":"y.bo3d","path":"Adir/y.bo3d","dir":false,"size":2,"kind":"bo3d"},` +
		`{"name":"x.blk","path":"zdir/x.blk","dir":false,"size":1,"kind":"blk"}]}`
	if got != want {
		t.Errorf("deep:\n got %s\nwant %s", got, want)
	}
	// Below Adir, "dir" is in no path: the directory's own name does not count.
	getJSON(t, s, "/api/list?dir=Adir&q=dir&deep=1", 200, &l)
	if l.Total != 0 {
		t.Errorf("deep below Adir: %+v", l)
	}
	getJSON(t, s, "/api/list?dir=Adir&q=Z&deep=1", 200, &l)
	if names(l) != "Adir/sub/z.lua" {
		t.Errorf("deep Z below Adir: %+v", l)
	}
	getJSON(t, s, "/api/list?deep=1", 200, &l)
	if l.Total != 10 {
		t.Errorf("deep, no q: %d", l.Total)
	}
}

// TestListErrors: a missing directory is 404, a file or a bad path 400.
func TestListErrors(t *testing.T) {
	s := listTree(t)
	wantError(t, s, "/api/list?dir=nope", 404, "nope")
	wantError(t, s, "/api/list?dir=nope&deep=1", 404, "nope")
	wantError(t, s, "/api/list?dir=B.txt", 400, "not a directory")
	wantError(t, s, "/api/list?dir=B.txt&deep=1", 400, "not a directory")
	for _, d := range []string{"..", "../x", "/etc", "a/../b", "Adir/"} {
		wantError(t, s, "/api/list?dir="+d, 400, "")
	}
}

// TestListCacheBounds: listings beyond the bounds are evicted, least
// recently used first, and a listing larger than the cache is not kept.
func TestListCacheBounds(t *testing.T) {
	var c listCache
	mk := func(n int64) func(*listBudget) (*listing, error) {
		return func(*listBudget) (*listing, error) { return &listing{bytes: n}, nil }
	}
	ctx := context.Background()
	for i := range maxCachedLists + 5 {
		c.get(ctx, listKey{dir: itoa(i)}, mk(1000))
	}
	if len(c.m) != maxCachedLists || c.bytes < maxCachedLists*1000 || c.bytes > maxCachedLists*1002 { // and the keys
		t.Errorf("%d lists, %d bytes", len(c.m), c.bytes)
	}
	if c.m[listKey{dir: "0"}] != nil || c.m[listKey{dir: itoa(maxCachedLists + 4)}] == nil {
		t.Error("evicted the wrong listings")
	}
	c.get(ctx, listKey{dir: "huge"}, mk(maxCachedBytes+1))
	if c.m[listKey{dir: "huge"}] != nil {
		t.Error("kept a listing larger than the cache")
	}
	c.get(ctx, listKey{dir: "big"}, mk(maxCachedBytes-100))
	if c.bytes > maxCachedBytes || c.m[listKey{dir: "big"}] == nil {
		t.Errorf("%d bytes cached", c.bytes)
	}
	calls := 0
	for range 2 {
		c.get(ctx, listKey{dir: "big"}, func(*listBudget) (*listing, error) { calls++; return &listing{}, nil })
	}
	if calls != 0 {
		t.Error("a cached listing was built again")
	}
}

// TestListPathOrderedSameAnswers: a package in path order (listed from
// its object run) and the same objects in another order (listed through
// fs.FS) give the same answers, in the file tree as in one package.
func TestListPathOrderedSameAnswers(t *testing.T) {
	files := map[string]string{"a-b": "1", "a/b": "22", "a.txt": "333", "a/c/d": "4", "a/c-d/e.png": "55", "a/ca": "6", "b/x": "7", "z": "8"}
	var ordered []string
	for n := range files {
		ordered = append(ordered, n)
	}
	slices.SortFunc(ordered, pack.ComparePaths)
	reversed := slices.Clone(ordered)
	slices.Reverse(reversed)
	fast := packBytes(t, files, ordered)
	slow := packBytes(t, files, reversed)
	targets := []string{"", "a", "a/c", "b", "nope", "a.txt", "a/c/d"}
	for _, mounted := range []bool{false, true} {
		var sf, ss *Server
		prefix := ""
		if mounted {
			sf = newServer(t, []File{file("p.bpx", fast), file("q.bin", []byte("x"))})
			ss = newServer(t, []File{file("p.bpx", slow), file("q.bin", []byte("x"))})
			prefix = "p.bpx"
		} else {
			sf = newServer(t, []File{file("p.bpx", fast)})
			ss = newServer(t, []File{file("p.bpx", slow)})
		}
		if in, _ := sf.packageDir(prefix); in == nil || !sf.files[0].pkg.PathOrdered() || ss.files[0].pkg.PathOrdered() {
			t.Fatal("the packages do not take the two ways")
		}
		for _, d := range targets {
			if mounted {
				d = strings.TrimSuffix(prefix+"/"+d, "/")
			}
			for _, q := range []string{"", "&q=C", "&deep=1", "&deep=1&q=c", "&deep=1&q=zz"} {
				u := "/api/list?dir=" + d + q
				a, b := get(t, sf, u), get(t, ss, u)
				if a.Code != b.Code || a.Body.String() != b.Body.String() {
					t.Errorf("%s:\n path order %d %s\n other     %d %s", u, a.Code, a.Body, b.Code, b.Body)
				}
			}
		}
	}
	var l listAnswer
	getJSON(t, newServer(t, []File{file("p.bpx", fast)}), "/api/list?dir=a", 200, &l)
	if names(l) != "a/c a/c-d a/b a/ca" {
		t.Errorf("a: %s", names(l))
	}
}
