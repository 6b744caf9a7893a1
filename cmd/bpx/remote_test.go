package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestURLs runs every command that reads a file on a URL of a loopback
// server and checks that it prints what it prints for the local file.
func TestURLs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "src"), map[string]string{"a.txt": "alpha\n", "sub/b.txt": strings.Repeat("beta ", 5000)})
	writeFiles(t, filepath.Join(dir, "mod"), map[string]string{"a.txt": "modded\n"})
	meta := filepath.Join(dir, "meta.json")
	if err := os.WriteFile(meta, []byte(`{"name": "demo"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	www := filepath.Join(dir, "www")
	if err := os.Mkdir(www, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pack", "-q", "--meta", meta, "-o", filepath.Join(www, "p.bpx"), filepath.Join(dir, "src")},
		{"pack", "-q", "-o", filepath.Join(www, "mod.bpx"), filepath.Join(dir, "mod")},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	var mu sync.Mutex
	var ranged, plain int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get("Range") != "" {
			ranged++
		} else {
			plain++
		}
		mu.Unlock()
		http.FileServer(http.Dir(www)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	local, url := filepath.Join(www, "p.bpx"), srv.URL+"/p.bpx"
	localMod, urlMod := filepath.Join(www, "mod.bpx"), srv.URL+"/mod.bpx"

	for _, args := range [][]string{
		{"info", "PKG"},
		{"info", "--json", "PKG"},
		{"verify", "PKG"},
		{"ls", "PKG"},
		{"ls", "--json", "PKG"},
		{"cat", "PKG", "sub/b.txt"},
		{"cat", "-s", "0", "PKG"},
		{"sd", "PKG"},
		{"ls", "-L", "MOD", "PKG"},
		{"cat", "-L", "MOD", "PKG", "a.txt"},
	} {
		subst := func(pkg, mod string) []string {
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = strings.NewReplacer("PKG", pkg, "MOD", mod).Replace(a)
			}
			return out
		}
		want := runBPX(t, nil, subst(local, localMod)...)
		got := runBPX(t, nil, subst(url, urlMod)...)
		want.Stdout = strings.ReplaceAll(want.Stdout, local, url)
		if got != want || want.Code != exitOK {
			t.Errorf("%v: got %+v\nwant %+v", args, got, want)
		}
	}
	for _, layered := range []bool{false, true} {
		out := t.TempDir()
		args := []string{"unpack", "-q", "-C", out, url}
		want := map[string]string{"a.txt": "alpha\n", "sub/b.txt": strings.Repeat("beta ", 5000)}
		if layered {
			args = []string{"unpack", "-q", "-L", urlMod, "-C", out, url}
			want["a.txt"] = "modded\n"
		}
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
		if got := readFiles(t, out); !equalMaps(got, want) {
			t.Errorf("%v: unpacked %v", args, got)
		}
	}
	if ranged == 0 || plain != 0 {
		t.Errorf("%d range requests, %d plain ones", ranged, plain)
	}

	// A missing file: one line naming the URL, exit status 1.
	r := runBPX(t, nil, "ls", srv.URL+"/missing.bpx")
	if r.Code != exitFail || !strings.Contains(r.Stderr, srv.URL+"/missing.bpx") || !strings.Contains(r.Stderr, "404") {
		t.Errorf("ls of a missing URL: %+v", r)
	}
	checkOneLineError(t, r)
}
