package explorer

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobpx/bpx/types/pack"
)

// rawTree is a package of files of several types, with names that need
// care in a Content-Disposition.
func rawTree(t testing.TB) *Server {
	return newServer(t, []File{file("p.bpx", packBytes(t, map[string]string{
		"etc/passwd":    "inside the package",
		"page.html":     "<script>alert(1)</script>",
		"img/a.png":     "\x89PNG\r\n\x1a\n0123456789",
		"noext":         "<html><body>sniff me</body></html>",
		"d/café ü.txt":  "unicode",
		`q"uote\.txt`:   "quote",
		"dir/inner.txt": "inner",
	}, nil))})
}

// TestRawHeaders: type from the extension only, the sandboxing policy,
// nosniff, and downloads.
func TestRawHeaders(t *testing.T) {
	s := rawTree(t)
	for p, want := range map[string]string{
		"page.html": "text/html; charset=utf-8",
		"img/a.png": "image/png",
		"noext":     "application/octet-stream",
	} {
		rec := get(t, s, "/raw/"+p)
		h := rec.Header()
		if rec.Code != 200 || h.Get("Content-Type") != want {
			t.Errorf("%s: %d, Content-Type %q, want %q", p, rec.Code, h.Get("Content-Type"), want)
		}
		if h.Get("Content-Security-Policy") != rawCSP || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q, nosniff %q", p, h.Get("Content-Security-Policy"), h.Get("X-Content-Type-Options"))
		}
		if h.Get("Accept-Ranges") != "bytes" || h.Get("Content-Disposition") != "" {
			t.Errorf("%s: headers %v", p, h)
		}
	}
	for p, want := range map[string]string{
		"img/a.png":                `attachment; filename="a.png"`,
		"d/caf%C3%A9%20%C3%BC.txt": `attachment; filename*=UTF-8''caf%C3%A9%20%C3%BC.txt`,
		`q%22uote%5C.txt`:          `attachment; filename="q\"uote\\.txt"`,
	} {
		rec := get(t, s, "/raw/"+p+"?download=1")
		if rec.Code != 200 || rec.Header().Get("Content-Disposition") != want {
			t.Errorf("%s: %d, Content-Disposition %q, want %q", p, rec.Code, rec.Header().Get("Content-Disposition"), want)
		}
	}
}

// TestRawRange: Range requests get 206 and Content-Range; HEAD gets the
// length and no body; an unsatisfiable range is 416.
func TestRawRange(t *testing.T) {
	s := rawTree(t)
	req := httptest.NewRequest("GET", "/raw/img/a.png", nil)
	req.Header.Set("Range", "bytes=8-11")
	rec := do(s, req)
	if rec.Code != http.StatusPartialContent || rec.Body.String() != "0123" || rec.Header().Get("Content-Range") != "bytes 8-11/18" {
		t.Errorf("range: %d %q %v", rec.Code, rec.Body, rec.Header())
	}
	req = httptest.NewRequest("GET", "/raw/img/a.png", nil)
	req.Header.Set("Range", "bytes=-2")
	if rec := do(s, req); rec.Code != 206 || rec.Body.String() != "89" {
		t.Errorf("suffix range: %d %q", rec.Code, rec.Body)
	}
	req = httptest.NewRequest("GET", "/raw/img/a.png", nil)
	req.Header.Set("Range", "bytes=100-")
	if rec := do(s, req); rec.Code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("unsatisfiable range: %d", rec.Code)
	}
	rec = do(s, httptest.NewRequest("HEAD", "/raw/img/a.png", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Length") != "18" || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d %v %q", rec.Code, rec.Header(), rec.Body)
	}
}

// TestRawTraversal: no request reads anything but a file of the tree.
// Paths that are not canonical are refused before any lookup.
func TestRawTraversal(t *testing.T) {
	s := rawTree(t)
	for _, p := range []string{
		"/raw/../x", "/raw/a/../../etc/passwd", "/raw/%2e%2e/etc/passwd", "/raw/dir/%2e%2e/%2e%2e/etc/passwd",
		"/raw/..%2fetc/passwd", "/raw/dir%2f..%2f..%2fetc%2fpasswd", `/raw/..\..\etc\passwd`, "/raw/..%5c..%5cetc%5cpasswd",
		"/raw//etc/passwd", "/raw/%2fetc/passwd", "/raw/etc/passwd%00", "/raw/a%00/../etc/passwd", "/raw/./etc/passwd",
		"/raw/", "/raw/dir", "/raw/dir/", "/raw/nope", "/raw/C:%5cWindows", "/raw/etc//passwd",
	} {
		rec := do(s, &http.Request{Method: "GET", URL: mustURL(t, p), Header: http.Header{}})
		if rec.Code != 400 && rec.Code != 404 {
			t.Errorf("%s: status %d: %s", p, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), "inside the package") || strings.Contains(rec.Body.String(), "root:") {
			t.Errorf("%s: served %q", p, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q", p, ct)
		}
	}
	// The package's own etc/passwd is a file of the tree.
	if rec := get(t, s, "/raw/etc/passwd"); rec.Body.String() != "inside the package" {
		t.Errorf("etc/passwd: %d %q", rec.Code, rec.Body)
	}
}

// TestInvalidObjects: objects whose names are no valid paths are listed
// by /api/invalid, quoted, and read by index only.
func TestInvalidObjects(t *testing.T) {
	objNames := []string{"ok.txt", "../evil", "/abs", "", "dup", "dup", "a", "a/b", "ctl\n"}
	files := map[string]string{}
	for _, n := range objNames {
		files[n] = "data of " + n
	}
	b := packBytes(t, files, objNames, pack.AllowInvalidNames())
	s := newServer(t, []File{file("p.bpx", b)})
	got := jsonOf(t, s, "/api/invalid?file=0")
	path := `"why":"not a valid relative path (empty, absolute, \"..\", \".\" or a trailing slash)"`
	want := `{"total":6,"offset":0,"next":6,"entries":[` +
		`{"index":1,"name":"\"../evil\"","length":7,` + path + `,"size":15},{"index":2,"name":"\"/abs\"","length":4,` + path + `,"size":12},` +
		`{"index":3,"name":"\"\"","length":0,` + path + `,"size":8},{"index":4,"name":"\"dup\"","length":3,"why":"duplicate name","size":11},` +
		`{"index":5,"name":"\"dup\"","length":3,"why":"duplicate name","size":11},` +
		`{"index":6,"name":"\"a\"","length":1,"why":"also a directory of other objects","size":9}]}`
	if got != want {
		t.Errorf("invalid:\n got %s\nwant %s", got, want)
	}
	getJSON(t, s, "/api/invalid?file=0&offset=4&limit=1", 200, new(invalidAnswer))
	var page invalidAnswer
	getJSON(t, s, "/api/invalid?file=0&offset=4&limit=1", 200, &page)
	if page.Total != 6 || len(page.Entries) != 1 || page.Entries[0].Index != 5 {
		t.Errorf("page: %+v", page)
	}
	wantError(t, s, "/api/invalid?file=0&limit=5001", 400, "limit")
	wantError(t, s, "/api/invalid?file=1", 404, "")
	for i, n := range objNames {
		rec := get(t, s, "/api/object?file=0&index="+itoa(i))
		if rec.Code != 200 || rec.Body.String() != "data of "+n {
			t.Errorf("object %d: %d %q", i, rec.Code, rec.Body)
		}
		h := rec.Header()
		if h.Get("Content-Disposition") != `attachment; filename="object-`+itoa(i)+`"` ||
			h.Get("Content-Type") != "application/octet-stream" || h.Get("Content-Security-Policy") != rawCSP {
			t.Errorf("object %d: headers %v", i, h)
		}
	}
	for _, bad := range []string{"9", "-1", "x", ""} {
		wantError(t, s, "/api/object?file=0&index="+bad, 404, "object")
	}
	wantError(t, s, "/api/object?file=2&index=0", 404, "file")
	// The invalid names are in no listing and no raw path.
	var l listAnswer
	getJSON(t, s, "/api/list?deep=1", 200, &l)
	if got := names(l); got != "a/b ctl\n ok.txt" {
		t.Errorf("listed: %q", got)
	}
	if rec := get(t, s, "/raw/ctl%0A"); rec.Body.String() != "data of ctl\n" {
		t.Errorf("ctl: %d %q", rec.Code, rec.Body)
	}
	for _, p := range []string{"/raw/..%2fevil", "/raw/%2fabs", "/raw/dup", "/raw/a"} {
		if rec := do(s, &http.Request{Method: "GET", URL: mustURL(t, p), Header: http.Header{}}); rec.Code != 400 && rec.Code != 404 {
			t.Errorf("%s: %d %q", p, rec.Code, rec.Body)
		}
	}
}
