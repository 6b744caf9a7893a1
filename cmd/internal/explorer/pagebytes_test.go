package explorer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// Issue 23, finding 2: the limits of the listings, of the invalid names
// and of the section table count bytes, not only entries. The hostile
// packages are built here, with the project's writers.

// pagedAnswer is the shape of a paged answer, for these tests: entries
// are kept raw.
type pagedAnswer struct {
	Total   int               `json:"total"`
	Offset  int               `json:"offset"`
	Next    *int              `json:"next"`
	Entries []json.RawMessage `json:"entries"`
}

// fetch requests target from srv (a real server on 127.0.0.1) and returns
// the status and body.
func fetch(t testing.TB, srv *httptest.Server, target string) (int, []byte) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// pages follows the pages of target (with offset= appended) from offset
// 0 to the end, checking that each page is within the byte cap and says
// where the next one starts, and returns every entry.
func pages(t *testing.T, srv *httptest.Server, target string) []json.RawMessage {
	t.Helper()
	var all []json.RawMessage
	for off, n := 0, 0; ; n++ {
		code, body := fetch(t, srv, fmt.Sprintf("%s&offset=%d", target, off))
		if code != 200 {
			t.Fatalf("%s offset %d: status %d: %.300s", target, off, code, body)
		}
		if len(body) > MaxPageBytes+4096 {
			t.Fatalf("%s offset %d: %d bytes, above the page cap %d", target, off, len(body), MaxPageBytes)
		}
		var p pagedAnswer
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Next == nil || *p.Next != off+len(p.Entries) || (len(p.Entries) == 0 && off < p.Total) {
			t.Fatalf("%s offset %d: next %v after %d entries of %d", target, off, p.Next, len(p.Entries), p.Total)
		}
		all = append(all, p.Entries...)
		off = *p.Next
		if off >= p.Total {
			return all
		}
		if n > 10_000 {
			t.Fatal("endless pages")
		}
	}
}

// longName is a name of n bytes, distinct for i, made of every letter.
func longName(prefix string, i, n int) string {
	s := fmt.Sprintf("%s%05d-", prefix, i)
	return s + strings.Repeat("abcdefghijklmnopqrstuvwxyz", n/26+1)[:n-len(s)]
}

// namedPackage is a package of one-byte objects with the given names, in
// that order; opts are added to its writer's.
func namedPackage(t testing.TB, names []string, opts ...pack.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, append([]pack.WriterOption{pack.WithCompression(bpx.CompressZlib)}, opts...)...)
	for _, n := range names {
		ow, err := w.CreateSized(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		ow.Write([]byte{'x'})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLongNamesLeftOut: a name longer than MaxPathLength is no path of
// the tree (nor are the directories only it implies): /api/invalid lists
// it, cut to a few hundred bytes with its length, and /api/object reads it.
func TestLongNamesLeftOut(t *testing.T) {
	objs := []string{"a.txt", "dir/b.txt", "long/" + strings.Repeat("x", MaxPathLength), "y/" + strings.Repeat("y", MaxPathLength-2)}
	for i := range 3 {
		objs = append(objs, longName("z", i, 100<<10))
	}
	s := newServer(t, []File{file("p.bpx", namedPackage(t, objs))})
	srv := httptest.NewServer(s)
	defer srv.Close()
	var l listAnswer
	getJSON(t, s, "/api/list?deep=1", 200, &l)
	if got := names(l); got != "a.txt dir/b.txt "+objs[3] {
		t.Errorf("deep listing: %.100q", got)
	}
	getJSON(t, s, "/api/list", 200, &l)
	if got := names(l); got != "dir y a.txt" {
		t.Errorf("root listing: %.100q", got)
	}
	code, body := fetch(t, srv, "/api/invalid?file=0")
	var inv struct {
		Total   int `json:"total"`
		Entries []struct {
			Index  int    `json:"index"`
			Name   string `json:"name"`
			Length int    `json:"length"`
			Why    string `json:"why"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(body, &inv); err != nil || code != 200 {
		t.Fatalf("invalid: %d %v", code, err)
	}
	if inv.Total != 4 || len(inv.Entries) != 4 || len(body) > 8<<10 {
		t.Fatalf("invalid: total %d, %d entries, %d bytes", inv.Total, len(inv.Entries), len(body))
	}
	for k, e := range inv.Entries {
		i := []int{2, 4, 5, 6}[k]
		if e.Index != i || e.Length != len(objs[i]) || e.Name != fmt.Sprintf("%q…", objs[i][:maxShownName]) || !strings.Contains(e.Why, "long") {
			t.Errorf("invalid entry %d: %+v", k, e)
		}
		if rec := get(t, s, "/api/object?file=0&index="+itoa(i)); rec.Code != 200 || rec.Body.String() != "x" {
			t.Errorf("object %d: %d %q", i, rec.Code, rec.Body)
		}
	}
	if code, _ := fetch(t, srv, "/raw/"+objs[2]); code != 404 {
		t.Errorf("raw of a long name: status %d", code)
	}
	if code, _ := fetch(t, srv, "/api/preview?path="+objs[2]); code != 404 {
		t.Errorf("preview of a long name: status %d", code)
	}
}

// TestListPageBytes: a page of a listing stops at MaxPageBytes of JSON,
// whatever the limit, and says where the next starts; the pages cover
// the listing once.
func TestListPageBytes(t *testing.T) {
	const n = 1000
	var objs []string
	for i := range n {
		objs = append(objs, longName("d/", i, 4000))
	}
	s := newServer(t, []File{file("p.bpx", namedPackage(t, objs))})
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, target := range []string{"/api/list?dir=d&limit=1000", "/api/list?deep=1&limit=1000", "/api/list?dir=d&q=abc&limit=1000"} {
		all := pages(t, srv, target)
		if len(all) != n {
			t.Fatalf("%s: %d entries, want %d", target, len(all), n)
		}
		for i, raw := range all {
			var e entryJSON
			if err := json.Unmarshal(raw, &e); err != nil || e.Path != objs[i] {
				t.Fatalf("%s: entry %d: %.80q, want %.80q", target, i, e.Path, objs[i])
			}
		}
	}
}

// TestInvalidPageBytes: /api/invalid shows names cut to maxShownName
// bytes, so its pages are small whatever the names; they cover every
// invalid name once.
func TestInvalidPageBytes(t *testing.T) {
	const n = 300
	var objs []string
	for i := range n {
		objs = append(objs, longName("/", i, 100<<10)) // absolute: invalid
	}
	s := newServer(t, []File{file("p.bpx", namedPackage(t, objs, pack.AllowInvalidNames()))})
	srv := httptest.NewServer(s)
	defer srv.Close()
	code, body := fetch(t, srv, "/api/invalid?file=0&limit=1000")
	if code != 200 || len(body) > 256<<10 {
		t.Fatalf("invalid: status %d, %d bytes", code, len(body))
	}
	all := pages(t, srv, "/api/invalid?file=0&limit=1000")
	if len(all) != n {
		t.Fatalf("%d invalid names, want %d", len(all), n)
	}
	for i, raw := range all {
		var e invalidJSON
		if err := json.Unmarshal(raw, &e); err != nil || e.Index != i || !strings.HasPrefix(e.Name, fmt.Sprintf("%q", objs[i][:20])[:21]) {
			t.Fatalf("entry %d: %.100s", i, raw)
		}
	}
}

// manySections is a container of n empty sections, written with the
// bpx writer.
func manySections(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	for range n {
		if _, err := w.CreateSection(0x42, bpx.SectionOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSectionTablePaged: /api/container answers the header and the first
// page of the section table with its count; /api/sections pages through
// the rest, each page within MaxPageBytes.
func TestSectionTablePaged(t *testing.T) {
	const n = 20_000
	s := newServer(t, []File{file("many.bpx", manySections(t, n))})
	srv := httptest.NewServer(s)
	defer srv.Close()
	code, body := fetch(t, srv, "/api/container?file=0")
	var c struct {
		Name         string            `json:"name"`
		Sections     []json.RawMessage `json:"sections"`
		SectionCount int               `json:"sectionCount"`
		SectionsNext int               `json:"sectionsNext"`
	}
	if err := json.Unmarshal(body, &c); err != nil || code != 200 {
		t.Fatalf("container: %d %v: %.200s", code, err, body)
	}
	if len(body) > MaxPageBytes || c.SectionCount != n || len(c.Sections) == 0 || len(c.Sections) >= n || c.SectionsNext != len(c.Sections) {
		t.Fatalf("container: %d bytes, %d of %d sections, next %d", len(body), len(c.Sections), c.SectionCount, c.SectionsNext)
	}
	all := pages(t, srv, "/api/sections?file=0&limit=5000")
	if len(all) != n {
		t.Fatalf("%d sections, want %d", len(all), n)
	}
	for _, i := range []int{0, 4999, 5000, n - 1} {
		var sec sectionJSON
		if err := json.Unmarshal(all[i], &sec); err != nil || sec.Index != i || sec.Type != 0x42 {
			t.Errorf("section %d: %s", i, all[i])
		}
	}
}

// TestNestedSectionTableBound: a container inside the tree (an object of
// a package) whose section table is beyond maxNestedSections is refused
// before its table is read: a 1,000,000-section table compresses to a few
// kilobytes but costs about 80 MB to open.
func TestNestedSectionTableBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,000,000-section container: skipped with -short")
	}
	many := manySections(t, 1_000_000)
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressZlib))
	ow, _ := w.Create("many.bpx")
	ow.Write(many)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	many = nil
	s := newServer(t, []File{file("mod.bpx", buf.Bytes())})
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, target := range []string{"/api/container?path=many.bpx", "/api/sections?path=many.bpx", "/api/verify?path=many.bpx&section=0"} {
		code, body := fetch(t, srv, target)
		if code != 413 || len(body) > 4096 || !bytes.Contains(body, []byte("sections")) {
			t.Errorf("%s: status %d, %d bytes: %.200s", target, code, len(body), body)
		}
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestListingMemory: 24 concurrent deep listings, each with another q, of
// a stack whose base holds names of 100 KiB and whose mod holds 2,500
// names of 4,000 bytes (a deep listing of a stack copies its paths):
// names beyond MaxPathLength are in no listing, the listing cache keeps
// at most maxCachedBytes, and at most maxListBuilds listings are built at
// once. Before, the cache held every listing (24 of 20 MB).
func TestListingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("hundreds of megabytes before the fix: skipped with -short")
	}
	var base, mod []string
	for i := range 100 {
		base = append(base, longName("b/", i, 100<<10))
	}
	for i := range 2500 {
		mod = append(mod, longName("m/", i, 4000))
	}
	s := newServer(t, []File{file("base.bpx", namedPackage(t, base)), file("mod.bpx", namedPackage(t, mod))}, WithLayers())
	srv := httptest.NewServer(s)
	defer srv.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	before := liveHeap()

	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the heap while the listings are built
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	totals := make([]int, 24)
	for i := range totals {
		wg.Go(func() {
			code, body := fetch(t, srv, fmt.Sprintf("/api/list?deep=1&limit=1000&q=%c", 'a'+i))
			var p pagedAnswer
			if err := json.Unmarshal(body, &p); err != nil || code != 200 || len(body) > MaxPageBytes+4096 {
				t.Errorf("q=%c: status %d, %d bytes: %.200s", 'a'+i, code, len(body), body)
			}
			totals[i] = p.Total
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	held := liveHeap()
	for i, n := range totals {
		if n != len(mod) {
			t.Errorf("q=%c: %d files, want the mod's %d", 'a'+i, n, len(mod))
		}
	}
	const mib = 1 << 20
	t.Logf("live heap %d MiB before, %d MiB after; peak %d MiB", before/mib, held/mib, peak.Load()/mib)
	if held > before+maxCachedBytes+32*mib {
		t.Errorf("the listings hold %d MiB, above the cache's %d MiB", (held-before)/mib, maxCachedBytes/mib)
	}
	if p := peak.Load(); p > before+maxCachedBytes+160*mib {
		t.Errorf("peak heap %d MiB above the start while building", (p-before)/mib)
	}
}

// TestListingBuildBound: a listing whose entries would take more than the
// cache's per-listing bound fails with 413 and asks for a narrower q;
// other listings still work.
func TestListingBuildBound(t *testing.T) {
	var mod []string
	for i := range 300 {
		mod = append(mod, longName("m/", i, 4000))
	}
	s := newServer(t, []File{file("base.bpx", namedPackage(t, []string{"a.txt"})), file("mod.bpx", namedPackage(t, mod))}, WithLayers())
	s.lists.maxListing = 1 << 20 // the 300 paths take 1.2 MB
	wantError(t, s, "/api/list?deep=1", 413, "narrow")
	var l listAnswer
	getJSON(t, s, "/api/list?deep=1&q=0001", 200, &l)
	if l.Total != 11 {
		t.Errorf("narrowed: %d files, want 11", l.Total)
	}
}

// TestListingGoneRequest: a request that is gone builds no listing and
// writes nothing.
func TestListingGoneRequest(t *testing.T) {
	s := newServer(t, []File{file("p.bpx", namedPackage(t, []string{"a/b.txt", "c.txt"}))})
	for _, target := range []string{"/api/list?deep=1&q=b", "/api/list?dir=a", "/api/list?q=c"} {
		if rec := serveGone(t, s, target); rec.Body.Len() != 0 {
			t.Errorf("%s: a gone request was answered %q", target, rec.Body)
		}
	}
	if n := len(s.lists.m); n != 0 {
		t.Errorf("%d listings built for gone requests", n)
	}
}

// TestJSONLen: jsonLen is never below what encoding/json writes, and
// exact for names without control characters, quotes or backslashes.
func TestJSONLen(t *testing.T) {
	rnd := make([]byte, 4096)
	for i := range rnd {
		rnd[i] = byte(i*131 + i/7)
	}
	for _, s := range []string{"", "abc", "<a&b>", "é日本", "\xff\xfe\xc3", "\u2028\u2029", "\x00\x1f\n\t", `"\`, string(rnd)} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		exact := !strings.ContainsAny(s, "\x00\x1f\n\t\"\\")
		if n := jsonLen(s); n < len(b) || exact && n != len(b) {
			t.Errorf("jsonLen(%.20q) = %d, encoding/json writes %d", s, n, len(b))
		}
	}
}
