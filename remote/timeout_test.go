package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gobpx/bpx/internal/leakcheck"
)

// stallServer serves content with ranges for its first `good` requests,
// then answers with stall(w, r); it counts requests.
type stallServer struct {
	url      string
	client   *http.Client
	mu       sync.Mutex
	requests int
}

func newStallServer(t *testing.T, content []byte, good int, stall func(w http.ResponseWriter, r *http.Request)) *stallServer {
	s := &stallServer{}
	srv := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		n := s.requests
		s.mu.Unlock()
		if n <= good {
			serveRange(w, r, content, map[string]string{"ETag": `"v1"`}, "")
			return
		}
		stall(w, r)
	})
	s.url, s.client = srv.URL, srv.Client()
	return s
}

// open opens the server's file in 4 KiB blocks, with fast retries.
func (s *stallServer) open(ctx context.Context, opts ...Option) (*File, error) {
	opts = append([]Option{WithClient(s.client), WithHeadSize(4 * kib), WithBlockSize(4 * kib), withBackoff(time.Millisecond)}, opts...)
	return Open(ctx, s.url, opts...)
}

// read opens the server's file and reads 100 bytes at 500 KiB, and
// returns the error of Open if atOpen, else of ReadAt (Open must succeed).
func (s *stallServer) read(t *testing.T, ctx context.Context, atOpen bool, opts ...Option) error {
	t.Helper()
	f, err := s.open(ctx, opts...)
	if atOpen || err != nil {
		if !atOpen {
			t.Fatal(err)
		}
		return err
	}
	defer f.Close()
	_, err = f.ReadAt(make([]byte, 100), 500*kib)
	return err
}

func (s *stallServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// startRange sends the headers of a 206 for the range asked of a 1 MiB
// file, and returns its length.
func startRange(w http.ResponseWriter, r *http.Request) int {
	var a, b int
	fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b)
	w.Header().Set("ETag", `"v1"`)
	w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, 1<<20))
	w.Header().Set("Content-Length", fmt.Sprint(b-a+1))
	w.WriteHeader(http.StatusPartialContent)
	w.(http.Flusher).Flush()
	return b - a + 1
}

// trickle sends the headers of a 206 for the range asked, then one byte
// every 20 ms until the client goes away.
func trickle(w http.ResponseWriter, r *http.Request) {
	for range startRange(w, r) {
		w.Write([]byte{0})
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// silentAfterHeaders sends the headers of a 206, then nothing.
func silentAfterHeaders(w http.ResponseWriter, r *http.Request) {
	startRange(w, r)
	<-r.Context().Done()
}

// silent reads the request and never answers.
func silent(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// TestTimeouts is finding 5 of issue 23: a server that stalls, before its
// headers or in its body, or that sends its body a byte at a time, fails
// the request after the idle or the request timeout, without retries. The
// outer context's minute only bounds the test if the timeouts do not work.
func TestTimeouts(t *testing.T) {
	content := pattern(1<<20, 4)
	for _, tc := range []struct {
		name      string
		stall     func(w http.ResponseWriter, r *http.Request)
		atOpen    bool
		idle, req time.Duration
		want      string
	}{
		{"trickle", trickle, false, time.Minute, 300 * time.Millisecond, "request timeout"},
		{"trickle-open", trickle, true, time.Minute, 300 * time.Millisecond, "request timeout"},
		{"silent-after-headers", silentAfterHeaders, false, 200 * time.Millisecond, time.Minute, "idle timeout"},
		{"silent", silent, false, 200 * time.Millisecond, time.Minute, "idle timeout"},
		{"silent-open", silent, true, 200 * time.Millisecond, time.Minute, "idle timeout"},
		{"silent-request-timeout", silent, false, time.Minute, 200 * time.Millisecond, "request timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leakcheck.Check(t)
			good := 1
			if tc.atOpen {
				good = 0
			}
			s := newStallServer(t, content, good, tc.stall)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := s.read(t, ctx, tc.atOpen, WithIdleTimeout(tc.idle), WithRequestTimeout(tc.req))
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want ErrTimeout", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v matches the outer context's DeadlineExceeded", err)
			}
			mustContain(t, err, s.url, tc.want)
			// A stalled request is not retried.
			if n := s.count(); n != good+1 {
				t.Errorf("%d requests, want %d", n, good+1)
			}
		})
	}
}

// TestRequestTimeoutCoversRetries checks that the retries of a failing
// request and their waits end with the request timeout: with 10 retries
// waiting 50, 100, 200 ms... a 5xx server is asked a few times in 250 ms,
// not 11 times.
func TestRequestTimeoutCoversRetries(t *testing.T) {
	leakcheck.Check(t)
	s := newStallServer(t, pattern(1<<20, 5), 1, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	err := s.read(t, context.Background(), false, WithRetries(10), WithRequestTimeout(250*time.Millisecond), withBackoff(50*time.Millisecond))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	mustContain(t, err, "503")
	if n := s.count() - 1; n > 4 {
		t.Errorf("%d requests after Open, want at most 4", n)
	}
}
