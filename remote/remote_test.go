package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/leakcheck"
	"github.com/gobpx/bpx/types/pack"
)

const kib = 1 << 10

// TestPackage reads every file of a real package through a File.
func TestPackage(t *testing.T) {
	leakcheck.Check(t)
	files := fstest.MapFS{}
	for i := range 40 {
		files[fmt.Sprintf("dir%d/file%d.txt", i%4, i)] = &fstest.MapFile{Data: pattern(1000+i*5000, byte(i))}
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressXZ), pack.WithSectionSize(64*kib))
	if err := w.AddFS(files); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, buf.Bytes())
	f, err := s.open(t, context.Background(), WithHeadSize(4*kib), WithBlockSize(4*kib))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pack.NewReader(f, f.Size())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := fstest.TestFS(p, "dir0/file0.txt", "dir3/file39.txt"); err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := fs.ReadFile(p, name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Data) {
			t.Fatalf("%s: wrong bytes", name)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadAtMatchesBytesReader compares random reads with bytes.Reader's.
func TestReadAtMatchesBytesReader(t *testing.T) {
	content := pattern(300*kib+17, 1)
	s := newTestServer(t, content)
	f, err := s.open(t, context.Background(), WithHeadSize(8*kib), WithBlockSize(4*kib), WithCacheSize(32*kib))
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != int64(len(content)) {
		t.Fatalf("Size = %d, want %d", f.Size(), len(content))
	}
	ref := bytes.NewReader(content)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 200 {
				off := rng.Int64N(int64(len(content)) + 10)
				n := rng.IntN(40 * kib)
				got, want := make([]byte, n), make([]byte, n)
				gn, gerr := f.ReadAt(got, off)
				wn, werr := ref.ReadAt(want, off)
				if gn != wn || (gerr == nil) != (werr == nil) || !bytes.Equal(got[:gn], want[:wn]) {
					t.Errorf("ReadAt(%d bytes, %d) = %d, %v; want %d, %v", n, off, gn, gerr, wn, werr)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("negative offset: no error")
	}
	if f.lru.Len() > 8 {
		t.Errorf("%d blocks cached, limit 8", f.lru.Len())
	}
}

// TestRequests checks the head request, coalescing and whole blocks.
func TestRequests(t *testing.T) {
	s := newTestServer(t, pattern(1<<20, 2))
	f, err := s.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.counts(); n != 1 || s.requestRanges()[0] != "bytes=0-262143" {
		t.Fatalf("Open: %d requests %q, want 1 for bytes=0-262143", n, s.requestRanges())
	}
	if f.Validator() != `"v1"` {
		t.Errorf("Validator = %q", f.Validator())
	}
	// In the head: no request.
	if _, err := f.ReadAt(make([]byte, 200*kib), 10); err != nil {
		t.Fatal(err)
	}
	// Three missing blocks, read from the middle of the first to the
	// middle of the third: one request for those bytes only.
	off := int64(256*kib + 1000)
	if _, err := f.ReadAt(make([]byte, 150*kib), off); err != nil {
		t.Fatal(err)
	}
	// One byte of a missing block: its whole block.
	if _, err := f.ReadAt(make([]byte, 1), 900*kib); err != nil {
		t.Fatal(err)
	}
	want := []string{"bytes=0-262143", fmt.Sprintf("bytes=%d-%d", off, off+150*kib-1), "bytes=917504-983039"}
	if fmt.Sprint(s.requestRanges()) != fmt.Sprint(want) {
		t.Errorf("ranges %q, want %q", s.requestRanges(), want)
	}
	// The whole blocks of the coalesced request are cached.
	if _, err := f.ReadAt(make([]byte, 64*kib), 320*kib); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.counts(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	// Cached blocks are copies, not slices of the requests' buffers.
	f.mu.Lock()
	for el := f.lru.Front(); el != nil; el = el.Next() {
		if d := el.Value.(*block).data; cap(d) != DefaultBlockSize {
			t.Errorf("block %d: capacity %d", el.Value.(*block).idx, cap(d))
		}
	}
	f.mu.Unlock()
	if st := f.Stats(); st.Requests != 3 || st.Bytes != 256*kib+150*kib+64*kib {
		t.Errorf("Stats = %+v", st)
	}
}

// TestDefaultHead checks the first request of the defaults.
func TestDefaultHead(t *testing.T) {
	s := newTestServer(t, pattern(1<<20, 2))
	f, err := Open(context.Background(), s.URL, WithClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if want := fmt.Sprintf("bytes=0-%d", DefaultHeadSize-1); len(s.requestRanges()) != 1 || s.requestRanges()[0] != want {
		t.Errorf("ranges %q, want %q", s.requestRanges(), want)
	}
}

// TestSameBlockOneRequest checks that concurrent reads of a block being
// fetched wait for one request.
func TestSameBlockOneRequest(t *testing.T) {
	s := newTestServer(t, pattern(1<<20, 3))
	f, err := s.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.with(func(ts *testServer) { ts.latency = 50 * time.Millisecond })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.ReadAt(make([]byte, 100), 600*kib+int64(i)*1000); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n, _ := s.counts(); n != 2 {
		t.Errorf("%d requests (%q), want 2", n, s.requestRanges())
	}
}

// TestCacheEviction checks the LRU bound.
func TestCacheEviction(t *testing.T) {
	s := newTestServer(t, pattern(1<<20, 4))
	f, err := s.open(t, context.Background(), WithHeadSize(4*kib), WithBlockSize(4*kib), WithCacheSize(16*kib))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 10; i++ {
		if _, err := f.ReadAt(make([]byte, 10), 100*kib*i); err != nil {
			t.Fatal(err)
		}
	}
	if f.lru.Len() != 4 {
		t.Errorf("%d blocks cached, want 4", f.lru.Len())
	}
	before, _ := s.counts()
	f.ReadAt(make([]byte, 10), 900*kib) // recent: cached
	f.ReadAt(make([]byte, 10), 0)       // evicted: fetched again
	if n, _ := s.counts(); n != before+1 {
		t.Errorf("%d requests, want %d", n, before+1)
	}
}

// TestSmallFiles checks files shorter than the head: a 206 of the whole
// file, a 200 from a server ignoring Range, and an empty file (416).
func TestSmallFiles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		noRange bool
	}{{"206", 1000, false}, {"200", 1000, true}, {"empty", 0, false}, {"empty200", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			content := pattern(tc.size, 5)
			s := newTestServer(t, content)
			s.with(func(ts *testServer) { ts.noRange = tc.noRange })
			f, err := s.open(t, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if f.Size() != int64(tc.size) {
				t.Fatalf("Size = %d, want %d", f.Size(), tc.size)
			}
			got := make([]byte, tc.size+10)
			n, err := f.ReadAt(got, 0)
			if n != tc.size || err != io.EOF || !bytes.Equal(got[:n], content) {
				t.Errorf("ReadAt = %d, %v", n, err)
			}
			if n, _ := s.counts(); n != 1 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

// TestNoRange checks that a server ignoring Range is refused, after at
// most the head's bytes.
func TestNoRange(t *testing.T) {
	s := newTestServer(t, pattern(4<<20, 6))
	s.with(func(ts *testServer) { ts.noRange = true })
	_, err := s.open(t, context.Background())
	if !errors.Is(err, ErrNoRange) {
		t.Fatalf("Open: %v, want ErrNoRange", err)
	}
	mustContain(t, err, s.URL, "bytes 0-262143", "download the file")
	if n := strings.Count(err.Error(), "remote:"); n != 1 {
		t.Errorf("%q says remote: %d times", err, n)
	}
	if n, _ := s.counts(); n != 1 {
		t.Errorf("%d requests, want 1 (no retry)", n)
	}
	// Without Content-Length (a chunked 200), the head's bytes and one
	// more are read before refusing.
	s2 := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		for range 64 {
			w.Write(make([]byte, 64*kib))
			w.(http.Flusher).Flush()
		}
	})
	_, err = Open(context.Background(), s2.URL, WithClient(s2.Client()), WithHeadSize(64*kib))
	if !errors.Is(err, ErrNoRange) {
		t.Fatalf("chunked 200: %v, want ErrNoRange", err)
	}

	// A server that stops honouring Range after Open (same ETag).
	s3 := newTestServer(t, pattern(1<<20, 6))
	f3, err := s3.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s3.with(func(ts *testServer) { ts.noRange = true })
	if _, err := f3.ReadAt(make([]byte, 10), 500*kib); !errors.Is(err, ErrNoRange) {
		t.Errorf("ReadAt: %v, want ErrNoRange", err)
	}
}

// TestChanged checks every way a changed file is detected.
func TestChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		etag   string // of both versions; "" for none
		noCond bool
		resize bool
	}{
		{"etag", `"v1"`, false, false},                // If-Match: 412
		{"last-modified", "", false, false},           // If-Unmodified-Since: 412
		{"etag-ignored", `"v1"`, true, false},         // 206 with a new ETag
		{"lm-ignored", "", true, false},               // 206 with a new Last-Modified
		{"weak-etag", `W/"v1"`, true, false},          // 206 with a new weak ETag
		{"no-validator-size", "-", true, true},        // 206 with a new size
		{"etag-grown", `"v1"`, false, true},           // 412 again
		{"weak-etag-If-Range", `W/"v1"`, false, true}, // weak: Last-Modified pinned
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := pattern(1<<20, 7)
			s := newTestServer(t, old)
			s.with(func(ts *testServer) { ts.etag = tc.etag })
			s.with(func(ts *testServer) { ts.modtime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
			if tc.etag == "-" {
				s.with(func(ts *testServer) { ts.etag, ts.modtime = "", time.Time{} })
			}
			s.with(func(ts *testServer) { ts.noCond = tc.noCond })
			f, err := s.open(t, context.Background())
			if err != nil {
				t.Fatal(err)
			}
			nw := pattern(1<<20, 8)
			if tc.resize {
				nw = pattern(1<<20+1, 8)
			}
			switch {
			case tc.etag == "-":
				s.set(nw, "")
				s.with(func(ts *testServer) { ts.modtime = time.Time{} })
			case tc.etag == "":
				s.set(nw, "")
			case tc.etag[0] == 'W':
				s.set(nw, `W/"v2"`)
			default:
				s.set(nw, `"v2"`)
			}
			got := make([]byte, 300*kib)
			n, err := f.ReadAt(got, 200*kib)
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("ReadAt = %d, %v; want ErrChanged", n, err)
			}
			mustContain(t, err, s.URL, "bytes 262144-", "run the command again")
			if n != 0 {
				t.Errorf("ReadAt returned %d bytes", n)
			}
		})
	}
}

// TestRetries checks retries of 5xx answers, resets and short bodies.
func TestRetries(t *testing.T) {
	content := pattern(1<<20, 9)
	for _, tc := range []struct {
		name     string
		set      func(s *testServer, n int)
		failures int
		retries  int
		want     error // nil: success
	}{
		{"5xx-then-ok", func(s *testServer, n int) { s.fail = n }, 3, 3, nil},
		{"5xx-too-many", func(s *testServer, n int) { s.fail = n }, 5, 2, nil},
		{"reset-then-ok", func(s *testServer, n int) { s.reset = n }, 2, 3, nil},
		{"reset-too-many", func(s *testServer, n int) { s.reset = n }, 100, 1, nil},
		{"short-then-ok", func(s *testServer, n int) { s.truncate = n }, 1, 1, nil},
		{"short-too-many", func(s *testServer, n int) { s.truncate = n }, 100, 2, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			s := newTestServer(t, content)
			f, err := s.open(t, context.Background(), WithRetries(tc.retries))
			if err != nil {
				t.Fatal(err)
			}
			s.with(func(ts *testServer) { tc.set(ts, tc.failures) })
			got := make([]byte, 100*kib)
			_, err = f.ReadAt(got, 500*kib)
			n, _ := s.counts()
			if tc.failures <= tc.retries {
				if err != nil || !bytes.Equal(got, content[500*kib:600*kib]) {
					t.Fatalf("ReadAt: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			mustContain(t, err, s.URL, fmt.Sprintf("bytes %d-%d", 500*kib, 600*kib-1))
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v does not match %v", err, tc.want)
			}
			var re *Error
			if !errors.As(err, &re) || re.Off != 500*kib || re.End != 600*kib {
				t.Errorf("error %#v", err)
			}
			// The transport may itself retry a request on a reused
			// connection that closed before answering; resets may
			// therefore be used up faster than one per attempt.
			if max := 1 + 2*(1+tc.retries); n > max {
				t.Errorf("%d requests, want at most %d", n, max)
			}
		})
	}
}

// TestStatusErrors checks 4xx answers: no retry, classified.
func TestStatusErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   error
	}{{404, fs.ErrNotExist}, {410, fs.ErrNotExist}, {403, fs.ErrPermission}, {401, fs.ErrPermission}, {400, nil}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			s := newTestServer(t, pattern(1<<20, 10))
			s.with(func(ts *testServer) { ts.status = tc.status })
			_, err := s.open(t, context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%v does not match %v", err, tc.want)
			}
			mustContain(t, err, s.URL, "bytes 0-262143", fmt.Sprint(tc.status))
			if n, _ := s.counts(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			var re *Error
			if !errors.As(err, &re) || re.Status != tc.status {
				t.Errorf("error %#v", err)
			}
		})
	}
	// After Open too.
	s := newTestServer(t, pattern(1<<20, 10))
	f, err := s.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.with(func(ts *testServer) { ts.status = 404 })
	if _, err := f.ReadAt(make([]byte, 1), 600*kib); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadAt after removal: %v", err)
	}
}

// TestWrongContentRange checks a 206 for other bytes than asked.
func TestWrongContentRange(t *testing.T) {
	s := newTestServer(t, pattern(1<<20, 11))
	s.with(func(ts *testServer) { ts.shift = 1 })
	_, err := s.open(t, context.Background())
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("Open: %v, want ErrProtocol", err)
	}
	s.with(func(ts *testServer) { ts.shift = 0 })
	f, err := s.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.with(func(ts *testServer) { ts.shift = -100 })
	_, err = f.ReadAt(make([]byte, 10), 700*kib)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("ReadAt: %v, want ErrProtocol", err)
	}
	mustContain(t, err, s.URL, "bytes 655360-720895")
	if n, _ := s.counts(); n != 3 {
		t.Errorf("%d requests, want 3 (no retry)", n)
	}
}

// TestSlowServer checks that the context's deadline ends a stalled
// request, at Open and after.
func TestSlowServer(t *testing.T) {
	leakcheck.Check(t)
	s := newTestServer(t, pattern(1<<20, 12))
	s.with(func(ts *testServer) { ts.latency = time.Hour })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.open(t, ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open: %v, want DeadlineExceeded", err)
	}
	s.with(func(ts *testServer) { ts.latency = 0 })
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	f, err := s.open(t, ctx2)
	if err != nil {
		t.Fatal(err)
	}
	s.with(func(ts *testServer) { ts.latency = time.Hour })
	_, err = f.ReadAt(make([]byte, 10), 700*kib)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ReadAt: %v, want DeadlineExceeded", err)
	}
	mustContain(t, err, s.URL, "bytes 655360-720895")
}

// TestClose checks that Close ends the read-ahead and requests in flight,
// and that reads fail afterwards.
func TestClose(t *testing.T) {
	leakcheck.Check(t)
	s := newTestServer(t, pattern(4<<20, 13))
	f, err := s.open(t, context.Background(), WithHeadSize(4*kib), WithBlockSize(4*kib))
	if err != nil {
		t.Fatal(err)
	}
	// Sequential reads that miss start a read-ahead.
	for off := int64(4 * kib); off < 40*kib; off += 8 * kib {
		if _, err := f.ReadAt(make([]byte, 8*kib), off); err != nil {
			t.Fatal(err)
		}
	}
	// The read-ahead's next request stalls.
	s.with(func(ts *testServer) { ts.latency = time.Hour })
	f.mu.Lock()
	started := f.raWin > 0
	f.mu.Unlock()
	if !started {
		t.Fatal("no read-ahead after sequential reads")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadAt after Close: %v", err)
	}
}

// TestReadAhead checks that a sequential reader in small reads costs few
// requests.
func TestReadAhead(t *testing.T) {
	content := pattern(2<<20, 14)
	s := newTestServer(t, content)
	f, err := s.open(t, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("ReadAll: %v", err)
	}
	// 2 MiB in 64 KiB blocks is 32 blocks, 28 after the head; read-ahead
	// windows of 1, 2 and 4 MiB need far fewer requests.
	if n, _ := s.counts(); n > 10 {
		t.Errorf("%d requests: %q", n, s.requestRanges())
	}
}

// TestOptions checks that bad values fail before any request.
func TestOptions(t *testing.T) {
	s := newTestServer(t, pattern(1000, 15))
	for _, o := range []Option{
		WithClient(nil), WithHeadSize(0), WithBlockSize(100), WithBlockSize(MaxBlockSize + 1),
		WithCacheSize(0), WithCacheSize(1000), WithRetries(-1), WithRetries(MaxRetries + 1),
		WithHeadSize(DefaultCacheSize + 1),
	} {
		if _, err := s.open(t, context.Background(), o); err == nil {
			t.Error("bad option accepted")
		}
	}
	for _, u := range []string{"ftp://x/y", "file:///etc/passwd", "::"} {
		if _, err := Open(context.Background(), u); err == nil {
			t.Errorf("Open(%q) accepted", u)
		}
	}
	if n, _ := s.counts(); n != 0 {
		t.Errorf("%d requests", n)
	}
	// The password of a URL stays out of errors.
	s.with(func(ts *testServer) { ts.status = 404 })
	_, err := Open(context.Background(), "http://user:secret@"+s.Listener.Addr().String()+"/x", WithClient(s.Client()))
	if err == nil || bytes.Contains([]byte(err.Error()), []byte("secret")) {
		t.Errorf("error %v", err)
	}
}

// TestUnknownAuthority: a server whose certificate no trusted authority
// signed (a private CA, a self-signed test server) fails with a message
// that says what to do (issue 42 item 10: it said "x509: certificate
// signed by unknown authority" and no more).
func TestUnknownAuthority(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "p.bpx", time.Time{}, bytes.NewReader(pattern(1<<10, 1)))
	}))
	defer srv.Close()
	_, err := Open(context.Background(), srv.URL+"/p.bpx", WithRetries(0))
	if err == nil {
		t.Fatal("the server's certificate was trusted")
	}
	mustContain(t, err, "SSL_CERT_FILE")
}
