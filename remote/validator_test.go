package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// serveRange answers a "bytes=a-b" request with a 206 of content[a:b+1],
// the headers hdr, and the total size in Content-Range given as total
// ("" for len(content), or "*").
func serveRange(w http.ResponseWriter, r *http.Request, content []byte, hdr map[string]string, total string) {
	var a, b int
	if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b); err != nil || a > b {
		http.Error(w, "bad range", http.StatusBadRequest)
		return
	}
	b = min(b, len(content)-1)
	if total == "" {
		total = fmt.Sprint(len(content))
	}
	for k, v := range hdr {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%s", a, b, total))
	w.Header().Set("Content-Length", fmt.Sprint(b-a+1))
	w.WriteHeader(http.StatusPartialContent)
	w.Write(content[a : b+1])
}

// twoVersions serves a with the headers hdrA to the first request, and b
// with hdrB and the total totalB (see serveRange) to the later ones,
// ignoring their conditions.
func twoVersions(t *testing.T, a []byte, hdrA map[string]string, b []byte, hdrB map[string]string, totalB string) *httptest.Server {
	var mu sync.Mutex
	requests := 0
	return httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		first := requests == 1
		mu.Unlock()
		if first {
			serveRange(w, r, a, hdrA, "")
		} else {
			serveRange(w, r, b, hdrB, totalB)
		}
	})
}

// TestMixedVersions is finding 4 of issue 23: a server that ignores If-Match
// and answers later ranges from another version of the file, with a part
// that leaves out the pinned validator or the total size. Every such part
// is ErrChanged; no byte of it is returned or cached.
func TestMixedVersions(t *testing.T) {
	const lm = "Fri, 02 Jan 2026 03:04:05 GMT"
	for _, tc := range []struct {
		name          string
		first, later  map[string]string // headers of the first and later answers
		laterTotal    string
		wantValidator string
	}{
		{"etag-left-out", map[string]string{"ETag": `"v1"`}, nil, "", `"v1"`},
		{"etag-weak-for-strong", map[string]string{"ETag": `"v1"`}, map[string]string{"ETag": `W/"v1"`}, "", `"v1"`},
		{"etag-other", map[string]string{"ETag": `"v1"`}, map[string]string{"ETag": `"v2"`}, "", `"v1"`},
		{"etag-unknown-total", map[string]string{"ETag": `"v1"`}, map[string]string{"ETag": `"v1"`}, "*", `"v1"`},
		{"last-modified-left-out", map[string]string{"Last-Modified": lm}, nil, "", lm},
		{"last-modified-weak-etag-left-out", map[string]string{"Last-Modified": lm, "ETag": `W/"v1"`}, map[string]string{"ETag": `W/"v1"`}, "", lm},
		{"no-validator-unknown-total", nil, nil, "*", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := pattern(4096, 1), pattern(4096, 2)
			srv := twoVersions(t, a, tc.first, b, tc.later, tc.laterTotal)
			f, err := Open(context.Background(), srv.URL, WithClient(srv.Client()), WithHeadSize(512), WithBlockSize(512))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Validator() != tc.wantValidator {
				t.Errorf("Validator = %q, want %q", f.Validator(), tc.wantValidator)
			}
			p := make([]byte, 1024)
			n, err := f.ReadAt(p, 0)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("ReadAt = %d, %v; want ErrChanged (first half from A: %v, second from B: %v)",
					n, err, bytes.Equal(p[:512], a[:512]), bytes.Equal(p[512:], b[512:1024]))
			}
			if n != 0 {
				t.Errorf("ReadAt returned %d bytes", n)
			}
			mustContain(t, err, srv.URL, "bytes 512-1023")
			f.mu.Lock()
			_, cached := f.blocks[1]
			f.mu.Unlock()
			if cached {
				t.Error("the changed part was cached")
			}
			// Asked again, it is asked of the server again, and fails again.
			if n, err := f.ReadAt(p[:10], 600); !errors.Is(err, ErrChanged) {
				t.Errorf("second ReadAt = %d, %v; want ErrChanged", n, err)
			}
		})
	}
}

// TestSameVersion checks that parts with the pinned validators are
// accepted: a strong ETag whatever the Last-Modified, a Last-Modified with
// or without a weak ETag, and, with no validator, a stated total size.
func TestSameVersion(t *testing.T) {
	const lm = "Fri, 02 Jan 2026 03:04:05 GMT"
	for _, tc := range []struct {
		name         string
		first, later map[string]string
	}{
		{"etag", map[string]string{"ETag": `"v1"`, "Last-Modified": lm}, map[string]string{"ETag": `"v1"`}},
		{"last-modified", map[string]string{"Last-Modified": lm, "ETag": `W/"v1"`}, map[string]string{"Last-Modified": lm}},
		{"none", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content := pattern(4096, 3)
			srv := twoVersions(t, content, tc.first, content, tc.later, "")
			f, err := Open(context.Background(), srv.URL, WithClient(srv.Client()), WithHeadSize(512), WithBlockSize(512))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := make([]byte, len(content))
			if n, err := f.ReadAt(p, 0); n != len(p) || err != nil || !bytes.Equal(p, content) {
				t.Errorf("ReadAt = %d, %v", n, err)
			}
		})
	}
}
