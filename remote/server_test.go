package remote

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer serves one file with http.ServeContent on 127.0.0.1, counts
// requests and bytes, and misbehaves on demand.
type testServer struct {
	*httptest.Server

	mu       sync.Mutex
	content  []byte
	etag     string    // sent when not ""
	modtime  time.Time // sent when not zero
	latency  time.Duration
	fail     int  // answer the next fail requests with 503
	status   int  // answer every request with this status when not 0
	reset    int  // close the connection of the next reset requests
	noRange  bool // answer with the whole file
	noCond   bool // ignore If-Range and If-Match (a broken cache)
	truncate int  // cut the body of the next truncate answers in half
	shift    int  // shift the Content-Range of 206 answers by this
	requests int
	bytes    int
	ranges   []string
}

func newTestServer(t testing.TB, content []byte) *testServer {
	s := &testServer{content: content, etag: `"v1"`}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.Close()
		s.Client().CloseIdleConnections()
	})
	return s
}

// set changes the file, as an upload of a new version does.
func (s *testServer) set(content []byte, etag string) {
	s.mu.Lock()
	s.content, s.etag = content, etag
	s.modtime = s.modtime.Add(time.Hour)
	s.mu.Unlock()
}

// with changes the server's behaviour.
func (s *testServer) with(fn func(*testServer)) {
	s.mu.Lock()
	fn(s)
	s.mu.Unlock()
}

// requestRanges returns the Range header of every request so far.
func (s *testServer) requestRanges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

func (s *testServer) counts() (requests, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.bytes
}

func (s *testServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	content, etag, modtime, latency := s.content, s.etag, s.modtime, s.latency
	fail, reset, truncate := s.fail > 0, s.reset > 0, s.truncate > 0
	if fail {
		s.fail--
	}
	if reset {
		s.reset--
	}
	if truncate {
		s.truncate--
	}
	status, noRange, noCond, shift := s.status, s.noRange, s.noCond, s.shift
	s.mu.Unlock()

	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case reset:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case fail:
		http.Error(w, "try later", http.StatusServiceUnavailable)
		return
	case status != 0:
		http.Error(w, http.StatusText(status), status)
		return
	}
	if noRange {
		r.Header.Del("Range")
	}
	if noCond {
		r.Header.Del("If-Range")
		r.Header.Del("If-Match")
		r.Header.Del("If-Unmodified-Since")
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	cw := &countingWriter{ResponseWriter: w, s: s, limit: -1}
	if truncate {
		cw.limit = 0 // set from Content-Length at WriteHeader
		cw.half = true
	}
	if shift != 0 {
		cw.shift = shift
	}
	http.ServeContent(cw, r, "", modtime, bytes.NewReader(content))
}

// countingWriter counts the body bytes, and can cut the body or rewrite
// the Content-Range.
type countingWriter struct {
	http.ResponseWriter
	s     *testServer
	limit int // bytes still allowed, -1 for all
	half  bool
	shift int
}

func (w *countingWriter) WriteHeader(code int) {
	h := w.Header()
	if w.half {
		n, _ := strconv.Atoi(h.Get("Content-Length"))
		w.limit = n / 2
	}
	if w.shift != 0 && code == http.StatusPartialContent {
		var a, b, total int64
		fmt.Sscanf(h.Get("Content-Range"), "bytes %d-%d/%d", &a, &b, &total)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a+int64(w.shift), b+int64(w.shift), total))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n := len(p)
	if w.limit >= 0 && len(p) > w.limit {
		p = p[:w.limit]
	}
	if w.limit >= 0 {
		w.limit -= len(p)
	}
	m, err := w.ResponseWriter.Write(p)
	w.s.mu.Lock()
	w.s.bytes += m
	w.s.mu.Unlock()
	if err != nil {
		return m, err
	}
	return n, nil
}

func httptestServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	s := httptest.NewServer(h)
	t.Cleanup(func() {
		s.Close()
		s.Client().CloseIdleConnections()
	})
	return s
}

// open opens the server's file with its client and fast retries.
func (s *testServer) open(t testing.TB, ctx context.Context, opts ...Option) (*File, error) {
	t.Helper()
	// A 256 KiB head unless the test says otherwise: the tests give
	// offsets past it.
	opts = append([]Option{WithClient(s.Client()), withBackoff(time.Millisecond), WithHeadSize(256 << 10)}, opts...)
	f, err := Open(ctx, s.URL+"/assets.bpx", opts...)
	if err == nil {
		t.Cleanup(func() { f.Close() })
	}
	return f, err
}

// withBackoff sets the first retry's delay (tests only).
func withBackoff(d time.Duration) Option {
	return func(c *config) error { c.backoff = d; return nil }
}

// pattern returns n bytes that differ at every offset modulo 2^24.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i) ^ byte(i>>8)*31 ^ byte(i>>16)*7 ^ seed
	}
	return b
}

func mustContain(t *testing.T, err error, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
