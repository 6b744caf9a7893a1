package remote

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestContentEncoding is finding 7 of issue 23: an answer coded with
// anything but identity (here gzip, at Open and after) is ErrProtocol, not
// taken for the file's bytes and not retried.
func TestContentEncoding(t *testing.T) {
	content := pattern(1<<20, 8)
	gzipped := func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "identity" {
			t.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
		}
		serveRange(w, r, content, map[string]string{"ETag": `"v1"`, "Content-Encoding": "gzip"}, "")
	}
	for _, good := range []int{0, 1} {
		s := newStallServer(t, content, good, gzipped)
		err := s.read(t, context.Background(), good == 0)
		if !errors.Is(err, ErrProtocol) {
			t.Fatalf("after %d good answers: %v, want ErrProtocol", good, err)
		}
		mustContain(t, err, "Content-Encoding", "gzip")
		if n := s.count(); n != good+1 {
			t.Errorf("%d requests, want %d", n, good+1)
		}
	}
}

// TestRetryStatus checks which statuses are retried: 408 and 429 are,
// after their Retry-After when it fits in the request timeout; other 4xx
// are not.
func TestRetryStatus(t *testing.T) {
	content := pattern(1<<20, 9)
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		failures   int
		ok         bool
		wantErr    error // matched when not nil
		requests   int   // after Open
	}{
		{"408", 408, "", 2, true, nil, 3},
		{"429", 429, "0", 2, true, nil, 3},
		{"429-too-late", 429, "3600", 100, false, ErrTimeout, 1},
		{"503-too-late", 503, "3600", 100, false, ErrTimeout, 1},
		{"418", 418, "", 100, false, nil, 1},
		{"501", 501, "", 100, false, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var failed atomic.Int32
			s := newStallServer(t, content, 1, func(w http.ResponseWriter, r *http.Request) {
				if int(failed.Add(1)) <= tc.failures {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					http.Error(w, "no", tc.status)
					return
				}
				serveRange(w, r, content, map[string]string{"ETag": `"v1"`}, "")
			})
			err := s.read(t, context.Background(), false, WithRequestTimeout(time.Minute))
			if tc.ok != (err == nil) || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("ReadAt: %v, want success %v, error %v", err, tc.ok, tc.wantErr)
			}
			var re *Error
			if err != nil && (!errors.As(err, &re) || re.Status != tc.status) {
				t.Errorf("error %#v, want status %d", err, tc.status)
			}
			if n := s.count() - 1; n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

// TestBadCertificate checks that a certificate the client does not trust
// is a permanent error: one connection, no retries.
func TestBadCertificate(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{}} // trusts the system's roots only
	defer client.CloseIdleConnections()
	_, err := Open(context.Background(), srv.URL, WithClient(client), withBackoff(0))
	if err == nil {
		t.Fatal("no error")
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1: %v", n, err)
	}
}
