package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPull updates a package from a loopback server: the new file is the
// server's, byte for byte, and a second pull finds it up to date.
func TestPull(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	files := map[string]string{}
	for i := range 12 {
		b := make([]byte, 100_000+r.IntN(100_000))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		files[fmt.Sprintf("media/f%02d.ogg", i)] = string(b)
	}
	files["levels/one.txt"] = strings.Repeat("level one ", 20000)
	writeFiles(t, filepath.Join(dir, "v1"), files)
	files["levels/one.txt"] = strings.Repeat("level one, changed ", 10000)
	files["media/new.ogg"] = files["media/f03.ogg"][:50000] + "new"
	writeFiles(t, filepath.Join(dir, "v2"), files)
	www := filepath.Join(dir, "www")
	if err := os.Mkdir(www, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1", "v2"} {
		if r := runBPX(t, nil, "pack", "-q", "-o", filepath.Join(www, v+".bpx"), filepath.Join(dir, v)); r.Code != exitOK {
			t.Fatalf("pack %s: %+v", v, r)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(www)))
	defer srv.Close()
	v1, _ := os.ReadFile(filepath.Join(www, "v1.bpx"))
	v2, _ := os.ReadFile(filepath.Join(www, "v2.bpx"))
	local := filepath.Join(dir, "game.bpx")
	if err := os.WriteFile(local, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(name string) {
		t.Helper()
		got, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(got, v2) {
			t.Fatalf("%s is not the server's file (%v)", name, err)
		}
		if _, err := os.Stat(name + ".part"); err == nil {
			t.Fatalf("%s.part left behind", name)
		}
	}
	res := runBPX(t, nil, "pull", "-q", srv.URL+"/v2.bpx", local)
	if res.Code != exitOK || !strings.Contains(res.Stdout, "game.bpx: updated, ") || !strings.Contains(res.Stdout, "copied from local files") {
		t.Fatalf("%+v", res)
	}
	check(local)
	if res := runBPX(t, nil, "pull", "-q", srv.URL+"/v2.bpx", local); res.Code != exitOK || !strings.Contains(res.Stdout, "up to date") {
		t.Fatalf("second pull: %+v", res)
	}
	// A new file from a local source, with the old version as a seed.
	fresh := filepath.Join(dir, "fresh.bpx")
	if res := runBPX(t, nil, "pull", "--seed", filepath.Join(www, "v1.bpx"), filepath.Join(www, "v2.bpx"), fresh); res.Code != exitOK {
		t.Fatalf("pull from a file: %+v", res)
	}
	check(fresh)
	if res := runBPX(t, nil, "pull", srv.URL+"/missing.bpx", local); res.Code != exitFail {
		t.Fatalf("missing URL: %+v", res)
	}
	check(local)
}

// TestDiffURLLocal: bpx diff URL LOCAL lists the update (from LOCAL to URL) and what a pull
// would fetch, fetching tables and digests only.
func TestDiffURLLocal(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	files := map[string]string{}
	for i := range 40 {
		b := make([]byte, 150_000)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		files[fmt.Sprintf("media/f%02d.ogg", i)] = string(b)
	}
	writeFiles(t, filepath.Join(dir, "v1"), files)
	files["media/f04.ogg"] = files["media/f04.ogg"][:1000] + "changed"
	files["media/new.ogg"] = "new"
	delete(files, "media/f10.ogg")
	writeFiles(t, filepath.Join(dir, "v2"), files)
	www := filepath.Join(dir, "www")
	os.Mkdir(www, 0o755)
	for _, v := range []string{"v1", "v2"} {
		if r := runBPX(t, nil, "pack", "-q", "-o", filepath.Join(www, v+".bpx"), filepath.Join(dir, v)); r.Code != exitOK {
			t.Fatalf("pack %s: %+v", v, r)
		}
	}
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.FileServer(http.Dir(www)).ServeHTTP(countingWriter{w, &sent}, r)
	}))
	defer srv.Close()
	res := runBPX(t, nil, "diff", srv.URL+"/v2.bpx", filepath.Join(www, "v1.bpx"))
	// Listed as the update (issue 42 item 9: it was backwards, what the
	// update adds as "-").
	if res.Code != exitFail || res.Stdout != "M media/f04.ogg\n- media/f10.ogg\n+ media/new.ogg\n" || !strings.Contains(res.Stderr, "bpx pull would fetch ") {
		t.Fatalf("%+v", res)
	}
	// The package's head (remote.DefaultHeadSize), the pull's header
	// and its digests.
	if fi, _ := os.Stat(filepath.Join(www, "v2.bpx")); sent.Load() > fi.Size()/4 {
		t.Errorf("diff fetched %d bytes of a %d-byte package", sent.Load(), fi.Size())
	}
}

// Issue 42, item 10 and goal 7: a launcher's check, bpx diff URL LOCAL
// with LOCAL up to date, costs at most 2 requests and 128 KiB, however
// large the package's tables: it read the head of 704 KiB (then
// remote.DefaultHeadSize: the tables of a package of 11,000 files) and planned the pull in 2 requests more.
func TestDiffURLLocalUpToDate(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 4000 { // tables of about 250 KB
		files[fmt.Sprintf("assets/some/deep/directory/levels/level%04d/file-with-a-long-name-%04d.txt", i/50, i)] = strings.Repeat(fmt.Sprint(i), 300)
	}
	writeFiles(t, filepath.Join(dir, "v1"), files)
	www := filepath.Join(dir, "www")
	os.Mkdir(www, 0o755)
	pkg := filepath.Join(www, "v1.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", pkg, filepath.Join(dir, "v1")); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	local := filepath.Join(dir, "local.bpx")
	b, _ := os.ReadFile(pkg)
	os.WriteFile(local, b, 0o644)
	var sent, requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.FileServer(http.Dir(www)).ServeHTTP(countingWriter{w, &sent}, r)
	}))
	defer srv.Close()
	for _, args := range [][]string{{"diff", srv.URL + "/v1.bpx", local}, {"diff", "--json", srv.URL + "/v1.bpx", local}} {
		sent.Store(0)
		requests.Store(0)
		res := runBPX(t, nil, args...)
		want := ""
		if args[1] == "--json" {
			want = "[]\n"
		}
		if res.Code != exitOK || res.Stdout != want || !strings.Contains(res.Stderr, "would leave") {
			t.Fatalf("%v: %+v", args, res)
		}
		if requests.Load() > 2 || sent.Load() > 128<<10 {
			t.Errorf("%v: %d requests, %d bytes (the package: %d bytes)", args, requests.Load(), sent.Load(), len(b))
		}
	}
}
