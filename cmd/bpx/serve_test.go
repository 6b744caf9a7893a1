package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startServe runs "bpx serve args..." in process until the test ends and
// returns the URL it prints. The exit status arrives on the channel once
// the test's cleanup has stopped it.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	old := serveContext
	serveContext = func() context.Context { return ctx }
	pr, pw := io.Pipe()
	var stderr strings.Builder
	code := make(chan int, 1)
	go func() {
		c := run(append([]string{"serve"}, args...), nil, pw, &stderr)
		pw.Close()
		code <- c
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "serving ")
	if err != nil || !ok {
		cancel()
		t.Fatalf("serve printed %q (%v); stderr %q", line, err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		select {
		case c := <-code:
			if c != exitOK {
				t.Errorf("serve exited with %d: %s", c, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
		serveContext = old
	})
	return url
}

// get fetches url and returns the status, the Content-Security-Policy and
// the body.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Security-Policy"), string(b)
}

// TestServe: bpx serve prints a loopback URL that serves the page and the
// package's objects, read-only, until it is stopped.
func TestServe(t *testing.T) {
	pkg := packTree(t, t.TempDir(), roundTripFiles)
	url := startServe(t, pkg)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %q: want 127.0.0.1 by default", url)
	}
	if code, csp, body := get(t, url); code != http.StatusOK || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(body, "<html") {
		t.Errorf("GET /: %d, CSP %q, %.80q", code, csp, body)
	}
	for name, want := range roundTripFiles {
		if code, _, body := get(t, url+"raw/"+name); code != http.StatusOK || body != want {
			t.Errorf("GET /raw/%s: %d %.40q, want %.40q", name, code, body, want)
		}
	}
	res, err := http.Post(url+"raw/"+firstKey(roundTripFiles), "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", res.StatusCode)
	}
}

// TestServeAnyAddress: listening on every address, serve prints a URL a
// local browser can open, and the page answers there.
func TestServeAnyAddress(t *testing.T) {
	pkg := packTree(t, t.TempDir(), roundTripFiles)
	url := startServe(t, "--addr", ":0", pkg)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %q: want 127.0.0.1 for a browser on this machine", url)
	}
	if code, _, body := get(t, url+"raw/readme.txt"); code != http.StatusOK || body != roundTripFiles["readme.txt"] {
		t.Errorf("GET /raw/readme.txt: %d %q", code, body)
	}
}

// TestServeLayersAndURLs: -L stacks a mod over the base, and both may be
// URLs.
func TestServeLayersAndURLs(t *testing.T) {
	dir := t.TempDir()
	packTree(t, filepath.Join(dir, "a"), map[string]string{"x.txt": "base x", "y.txt": "base y"})
	packTree(t, filepath.Join(dir, "b"), map[string]string{"x.txt": "mod x"})
	www := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer www.Close()
	url := startServe(t, "-L", www.URL+"/b/base.bpx", www.URL+"/a/base.bpx")
	for name, want := range map[string]string{"x.txt": "mod x", "y.txt": "base y"} {
		if code, _, body := get(t, url+"raw/"+name); code != http.StatusOK || body != want {
			t.Errorf("GET /raw/%s: %d %q, want %q", name, code, body, want)
		}
	}
}

// TestServeBadFileShowsError: a file that is no BPX file is shown with
// its error on the page; the server runs.
func TestServeBadFileShowsError(t *testing.T) {
	junk := writeFile(t, "junk.bpx", []byte("not a BPX file at all, only text"))
	url := startServe(t, junk)
	code, _, body := get(t, url+"api/files")
	var files struct {
		Files []struct {
			Name  string `json:"name"`
			Error string `json:"error"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(body), &files); code != http.StatusOK || err != nil || len(files.Files) != 1 ||
		files.Files[0].Error == "" {
		t.Errorf("GET /api/files: %d %s", code, body)
	}
}

// TestServeUsage: what serve refuses before it listens.
func TestServeUsage(t *testing.T) {
	pkg := packTree(t, t.TempDir(), roundTripFiles)
	for _, args := range [][]string{
		{"serve"},
		{"serve", "-L", pkg, pkg, pkg},
		{"serve", "--addr", "no-port", pkg},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitUsage {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}
