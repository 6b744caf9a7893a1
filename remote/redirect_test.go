package remote

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// counter counts requests per path.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[r.URL.Path]++
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := 0
	for _, n := range c.n {
		t += n
	}
	return t
}

// TestRedirectRefused is finding 7 of issue 23: redirects that can never
// work are permanent errors, sent once, not retried.
func TestRedirectRefused(t *testing.T) {
	for _, tc := range []struct {
		name, to string
		max      int // requests at most
	}{
		{"loop", "/loop", MaxRedirects + 1},
		{"file", "file:///etc/passwd", 1},
		{"ftp", "ftp://127.0.0.1/x", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c counter
			srv := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
				c.add(r)
				http.Redirect(w, r, tc.to, http.StatusFound)
			})
			_, err := Open(context.Background(), srv.URL+"/loop", WithClient(srv.Client()), withBackoff(0))
			if !errors.Is(err, ErrRedirect) {
				t.Fatalf("Open: %v, want ErrRedirect", err)
			}
			mustContain(t, err, srv.URL)
			if n := c.total(); n > tc.max {
				t.Errorf("%d requests, want at most %d", n, tc.max)
			}
		})
	}
}

// TestRedirectDowngrade checks that a redirect from https to http is
// refused.
func TestRedirectDowngrade(t *testing.T) {
	plain := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		serveRange(w, r, pattern(1000, 1), nil, "")
	})
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/x", http.StatusFound)
	}))
	defer tls.Close()
	_, err := Open(context.Background(), tls.URL+"/x", WithClient(tls.Client()))
	if !errors.Is(err, ErrRedirect) {
		t.Fatalf("Open: %v, want ErrRedirect", err)
	}
}

// TestRedirectPinned checks that the URL the first request ends at is the
// one later requests go to, that later redirects within its origin are
// followed, and that a later redirect to another origin is refused.
func TestRedirectPinned(t *testing.T) {
	content := pattern(1<<20, 6)
	serve := func(w http.ResponseWriter, r *http.Request) {
		serveRange(w, r, content, map[string]string{"ETag": `"v1"`}, "")
	}
	var cb counter
	var mu sync.Mutex
	var redirectTo string // where b redirects /file to, when not ""
	b := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		cb.add(r)
		mu.Lock()
		to := redirectTo
		mu.Unlock()
		if r.URL.Path == "/file" && to != "" {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		serve(w, r)
	})
	var ca counter
	a := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		ca.add(r)
		http.Redirect(w, r, b.URL+"/file", http.StatusFound)
	})
	var cc counter
	c := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		cc.add(r)
		serve(w, r)
	})

	f, err := Open(context.Background(), a.URL+"/start", WithClient(a.Client()), WithHeadSize(4*kib), WithBlockSize(4*kib))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 100)
	if _, err := f.ReadAt(p, 100*kib); err != nil || !bytes.Equal(p, content[100*kib:][:100]) {
		t.Fatalf("ReadAt: %v", err)
	}
	if n := ca.total(); n != 1 {
		t.Errorf("the first URL was asked %d times, want once", n)
	}
	// A redirect within the pinned origin is followed.
	mu.Lock()
	redirectTo = "/other"
	mu.Unlock()
	if _, err := f.ReadAt(p, 200*kib); err != nil || !bytes.Equal(p, content[200*kib:][:100]) {
		t.Fatalf("ReadAt after a same-origin redirect: %v", err)
	}
	// A redirect to another origin is not, even to the same file.
	mu.Lock()
	redirectTo = c.URL + "/file"
	mu.Unlock()
	before := cb.total()
	_, err = f.ReadAt(p, 300*kib)
	if !errors.Is(err, ErrRedirect) {
		t.Fatalf("ReadAt after a redirect to another origin: %v, want ErrRedirect", err)
	}
	mustContain(t, err, c.URL)
	if n := cc.total(); n != 0 {
		t.Errorf("the other origin was asked %d times", n)
	}
	if n := cb.total() - before; n != 1 {
		t.Errorf("%d requests for the refused redirect, want 1", n)
	}
}

// TestRedirectKeepsCredentials checks that the user and password of the
// URL given to Open go with the later requests to the pinned URL when it
// has the same origin.
func TestRedirectKeepsCredentials(t *testing.T) {
	content := pattern(1<<20, 7)
	srv := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if u, pw, ok := r.BasicAuth(); !ok || u != "user" || pw != "secret" {
			http.Error(w, "who?", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/a" {
			http.Redirect(w, r, "/b", http.StatusFound)
			return
		}
		serveRange(w, r, content, map[string]string{"ETag": `"v1"`}, "")
	})
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/a"
	f, err := Open(context.Background(), u, WithClient(srv.Client()), WithHeadSize(4*kib), WithBlockSize(4*kib))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(make([]byte, 10), 100*kib); err != nil {
		t.Fatal(err)
	}
}

// TestOrigin checks that origins compare scheme, host and port, whatever
// their case and whether the port is given.
func TestOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://example.com/a", "HTTP://Example.COM:80/b", true},
		{"https://example.com/a", "https://example.com:443/b", true},
		{"http://[::1]:8080/a", "http://[::1]:8080/b?x", true},
		{"http://example.com/a", "https://example.com/a", false},
		{"http://example.com/a", "http://example.com:8080/a", false},
		{"http://example.com/a", "http://example.org/a", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := origin(a) == origin(b); got != tc.same {
			t.Errorf("%s, %s: same origin %v (%s, %s)", tc.a, tc.b, got, origin(a), origin(b))
		}
	}
}
