package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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
