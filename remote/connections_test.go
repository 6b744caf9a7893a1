package remote

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConnectionsReused: a File on the default client keeps a connection
// for each request it has had in flight at once, so that the requests of
// a pull (4 at once by default, up to 32) do not each open a new one, a
// round trip more (three over TLS) each: http.DefaultTransport keeps 2
// idle connections a host, and 8 readers in 10 rounds opened about 60
// (issue 42 item 10: a pull took 13.7 round trips at 500 ms).
func TestConnectionsReused(t *testing.T) {
	content := pattern(4<<20, 3)
	s := &testServer{content: content, etag: `"v1"`}
	var conns atomic.Int64
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	s.Start()
	defer s.Close()
	f, err := Open(context.Background(), s.URL+"/assets.bpx", WithHeadSize(64<<10), WithBlockSize(16<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const readers, rounds = 8, 10
	for round := range rounds {
		var wg sync.WaitGroup
		for r := range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Blocks far apart: each read is a request of its own,
				// and none is sequential (no read-ahead).
				off := int64(1<<20 + (round*readers+r)*32<<10)
				p := make([]byte, 1000)
				if _, err := f.ReadAt(p, off); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	if n := conns.Load(); n > 2*readers {
		t.Errorf("%d readers in %d rounds opened %d connections, want at most %d", readers, rounds, n, 2*readers)
	}
	req, _ := s.counts()
	t.Logf("%d connections for %d requests", conns.Load(), req)
}
