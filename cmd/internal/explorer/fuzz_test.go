package explorer

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// FuzzServe gives New one file of fuzzed bytes and requests the browse
// endpoints: no panic, and every answer has a status the contract allows,
// errors as JSON.
func FuzzServe(f *testing.F) {
	small := packBytes(f, map[string]string{"a.txt": "hello", "d/b.png": "png", "d/e/c.bin": "x"}, nil)
	zlib := packBytes(f, map[string]string{"a.txt": strings.Repeat("zz", 300), "b": "b"}, nil,
		pack.WithCompression(bpx.CompressZlib), pack.WithChecksum(bpx.ChecksumCRC32))
	tex := textureBytes(f)
	for _, b := range [][]byte{small, zlib, tex, metaPackage(f)} {
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(b[:len(b)-1])
		f.Add(b[:64])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := New([]File{file("f.bpx", b)})
		if err != nil {
			t.Fatal(err) // New fails for no file
		}
		defer s.Close()
		targets := []string{"/api/files", "/api/list", "/api/list?deep=1&q=a", "/api/container?file=0",
			"/api/sections?file=0&offset=1&limit=2", "/api/invalid?file=0", "/api/object?file=0&index=0"}
		if in := s.files[0]; in.rd != nil {
			for i := range min(len(in.rd.Sections), 4) {
				targets = append(targets, fmt.Sprintf("/api/verify?file=0&section=%d", i),
					fmt.Sprintf("/api/section?file=0&section=%d&offset=1&length=100", i))
			}
		}
		for _, u := range targets {
			check(t, s, u)
		}
		rec := get(t, s, "/api/list?limit=3")
		var l listAnswer
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
			t.Fatalf("list: %v: %s", err, rec.Body)
		}
		if rec.Code == 200 && l.Next != len(l.Entries) {
			t.Fatalf("list: next %d after %d entries", l.Next, len(l.Entries))
		}
		for _, e := range l.Entries {
			check(t, s, "/raw/"+(&url.URL{Path: e.Path}).EscapedPath())
			if e.Dir {
				check(t, s, "/api/list?dir="+url.QueryEscape(e.Path))
			}
		}
	})
}

// check requests u and checks the answer's status and, for an error, its
// JSON.
func check(t *testing.T, s *Server, u string) {
	t.Helper()
	rec := get(t, s, u)
	switch rec.Code {
	case 200:
		return
	case 400, 404, 413, 422:
	default:
		t.Fatalf("GET %s: status %d: %s", u, rec.Code, rec.Body)
	}
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
		t.Fatalf("GET %s: status %d, body %q: %v", u, rec.Code, rec.Body, err)
	}
}
