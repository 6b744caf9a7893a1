package pull

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/types/pack"
)

// server serves one file with range requests on 127.0.0.1, counting what
// it sends; hook, if set, may answer a request itself.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	content  []byte
	etag     string
	requests int
	bytes    int64
	hook     func(w http.ResponseWriter, r *http.Request, n int) bool // n: the request's number, from 1
}

func newServer(t testing.TB, content []byte) *server {
	t.Helper()
	s := &server{content: content, etag: `"v1"`}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *server) set(content []byte, etag string) {
	s.mu.Lock()
	s.content, s.etag = content, etag
	s.mu.Unlock()
}

func (s *server) setHook(h func(w http.ResponseWriter, r *http.Request, n int) bool) {
	s.mu.Lock()
	s.hook, s.requests, s.bytes = h, 0, 0
	s.mu.Unlock()
}

func (s *server) counts() (int, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.bytes
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	n, content, etag, hook := s.requests, s.content, s.etag, s.hook
	s.mu.Unlock()
	if hook != nil && hook(w, r, n) {
		return
	}
	w.Header().Set("ETag", etag)
	cw := &countWriter{ResponseWriter: w, s: s}
	http.ServeContent(cw, r, "p.bpx", time.Unix(1e9, 0), bytes.NewReader(content))
}

type countWriter struct {
	http.ResponseWriter
	s *server
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.s.mu.Lock()
	c.s.bytes += int64(n)
	c.s.mu.Unlock()
	return n, err
}

func (s *server) url() string { return s.URL + "/p.bpx" }

// pull pulls s's file into local.
func (s *server) pull(t testing.TB, ctx context.Context, local string, opts ...Option) (*Result, error) {
	t.Helper()
	return PullURL(ctx, s.url(), local, []remote.Option{remote.WithClient(s.Client()), remote.WithRetries(2)}, opts...)
}

// gameTree is a tree of about n bytes like a game's data: incompressible
// media (stored as they are) and some text, in a few directories.
func gameTree(n int, seed uint64) fstest.MapFS {
	r := rand.New(rand.NewPCG(seed, 9))
	m := fstest.MapFS{}
	for i := 0; n > 0; i++ {
		size := 3000 + r.IntN(150_000)
		b := make([]byte, size)
		if i%4 == 0 {
			words := []string{"mesh ", "vertex ", "uv ", "normal ", "0.5 ", "1.0\n", "material "}
			var sb strings.Builder
			for sb.Len() < size {
				sb.WriteString(words[r.IntN(len(words))])
			}
			b = []byte(sb.String()[:size])
		} else {
			for j := range b {
				b[j] = byte(r.Uint32())
			}
		}
		m[fmt.Sprintf("%s/f%04d.bin", []string{"textures", "models", "sounds", "levels"}[i%4], i)] = &fstest.MapFile{Data: b}
		n -= size
	}
	return m
}

// patch changes, adds and removes a few files of m (a copy).
func patch(m fstest.MapFS, seed uint64) fstest.MapFS {
	r := rand.New(rand.NewPCG(seed, 10))
	out := fstest.MapFS{}
	for k, v := range m {
		out[k] = v
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for i := 0; i < 3; i++ {
		k := names[r.IntN(len(names))]
		b := bytes.Clone(out[k].Data)
		for j := 0; j < 10; j++ {
			b[r.IntN(len(b))] ^= 0xFF
		}
		out[k] = &fstest.MapFile{Data: b}
	}
	for i := 0; i < 3; i++ {
		b := make([]byte, 20_000+r.IntN(50_000))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[fmt.Sprintf("levels/new%d.bin", i)] = &fstest.MapFile{Data: b}
	}
	delete(out, names[r.IntN(len(names))])
	return out
}

func packBytes(t testing.TB, m fs.FS, opts ...pack.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, opts...)
	if err := w.AddFS(m); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
