package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpx/bpx/types/pack"
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

// TestURLStalls checks that a server that stalls after its headers, or
// sends its body a byte at a time, fails the command with one line naming
// the timeout (issue 23, finding 5): the timeouts the CLI sets reach the
// requests. They are shortened here; the outer bound of a minute only ends
// the test if they do not work.
func TestURLStalls(t *testing.T) {
	idle, req := remoteIdleTimeout, remoteRequestTimeout
	t.Cleanup(func() { remoteIdleTimeout, remoteRequestTimeout = idle, req })
	remoteIdleTimeout, remoteRequestTimeout = 200*time.Millisecond, 400*time.Millisecond
	for _, tc := range []struct {
		name string
		gap  time.Duration // between the body's bytes; 0: none sent
		want string
	}{{"silent-after-headers", 0, "idle timeout"}, {"trickle", 20 * time.Millisecond, "request timeout"}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var a, b int
				fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b)
				w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, 1<<30))
				w.Header().Set("Content-Length", fmt.Sprint(b-a+1))
				w.WriteHeader(http.StatusPartialContent)
				w.(http.Flusher).Flush()
				for tc.gap > 0 {
					select {
					case <-r.Context().Done():
						return
					case <-time.After(tc.gap):
					}
					w.Write([]byte{0})
					w.(http.Flusher).Flush()
				}
				<-r.Context().Done()
			}))
			defer srv.Close()
			done := make(chan result, 1)
			go func() { done <- runBPX(t, nil, "info", srv.URL+"/p.bpx") }()
			select {
			case r := <-done:
				if r.Code != exitFail || !strings.Contains(r.Stderr, tc.want) || !strings.Contains(r.Stderr, srv.URL) {
					t.Errorf("info of a stalling server: %+v", r)
				}
				checkOneLineError(t, r)
			case <-time.After(time.Minute):
				srv.CloseClientConnections() // or Close waits for the handler
				t.Fatal("info of a stalling server still running after a minute")
			}
		})
	}
}

// TestCatURLSmallAsset: a launcher or a mod manager that shows one small
// asset of a package on a server (an icon) makes two requests, the head
// and the asset, and reads at most 256 KiB beyond the asset, for a package
// of 8,000 files whose object table and names take 720 KB raw (issue 42
// item 10: a 3.5 KB PNG of the Go source tree's package cost 0.79 MB).
func TestCatURLSmallAsset(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 8000 {
		files[fmt.Sprintf("assets/some/deep/directory/levels/level%04d/file-with-a-long-name-%04d.txt", i/50, i)] = strings.Repeat(fmt.Sprint(i), 100)
	}
	icon := make([]byte, 3500)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range icon {
		icon[i] = byte(rng.Uint32())
	}
	files["assets/icon.png"] = string(icon)
	writeFiles(t, filepath.Join(dir, "game"), files)
	www := filepath.Join(dir, "www")
	os.Mkdir(www, 0o755)
	pkg := filepath.Join(www, "game.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", pkg, filepath.Join(dir, "game")); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	var sent, requests atomic.Int64
	var inflight sync.WaitGroup // a handler may count its last bytes after the client has them
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inflight.Add(1)
		defer inflight.Done()
		requests.Add(1)
		http.FileServer(http.Dir(www)).ServeHTTP(countingWriter{w, &sent}, r)
	}))
	defer srv.Close()
	res := runBPX(t, nil, "cat", srv.URL+"/game.bpx", "assets/icon.png")
	if res.Code != exitOK || res.Stdout != string(icon) {
		t.Fatalf("cat: code %d, %d bytes out, stderr %q", res.Code, len(res.Stdout), res.Stderr)
	}
	if n, max := sent.Load(), int64(len(icon))+256<<10; requests.Load() > 2 || n > max {
		t.Errorf("cat: %d requests, %d bytes (at most 2 and %d)", requests.Load(), n, max)
	}

	// Tables stored raw (the reference's packages, an older bpx's) do not
	// fit in the head: they come in one more request, whose end is
	// rounded up to the remote reader's block, and the object in one
	// more; not in one request a section, nor with a read-ahead of
	// megabytes that a run of three reads started.
	f, err := os.Create(filepath.Join(www, "raw.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	w := pack.NewWriter(f, pack.WithRawTables())
	if err := w.AddFS(os.DirFS(filepath.Join(dir, "game"))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p, err := pack.Open(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	ot := p.Reader.FindSection(pack.SectionObjectTable)
	dg := p.Reader.FindSection(pack.SectionDigests)
	tables := int64(dg.Pointer) + int64(dg.CSize)
	p.Close()
	if ot.Compressed() || tables < 512<<10 {
		t.Fatalf("raw tables end at %d (object table compressed: %v)", tables, ot.Compressed())
	}
	for _, args := range [][]string{{"cat", srv.URL + "/raw.bpx", "assets/icon.png"}, {"ls", srv.URL + "/raw.bpx"}} {
		inflight.Wait()
		sent.Store(0)
		requests.Store(0)
		res = runBPX(t, nil, args...)
		if res.Code != exitOK {
			t.Fatalf("%v: %+v", args[0], res)
		}
		want, max := int64(2), (tables+64<<10)/(64<<10)*(64<<10)
		if args[0] == "cat" {
			want, max = 3, max+64<<10
		}
		if n := sent.Load(); requests.Load() > want || n > max {
			t.Errorf("%s, raw tables: %d requests, %d bytes (at most %d and %d)", args[0], requests.Load(), n, want, max)
		}
	}
}
