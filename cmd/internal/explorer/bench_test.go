package explorer

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx/types/pack"
)

// The goal: listing the first 1,000 entries of the
// 1,000,000-object package over HTTP costs at most twice
// "bpx ls PACKAGE | head -1000". Compare BenchmarkList1000 (and
// BenchmarkList1000Cold) with BenchmarkLsBaseline of the same run.

// listFirstPage requests the first 1000 entries from srv and reads the
// answer.
func listFirstPage(b *testing.B, client *http.Client, url string) {
	resp, err := client.Get(url + "/api/list?limit=1000")
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || n < 60_000 {
		b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
	}
}

// BenchmarkList1000 lists the first page of 1000 entries of the big
// package over HTTP, from a running server (its listing cache warm, as
// when a user pages or comes back).
func BenchmarkList1000(b *testing.B) {
	s := newServer(b, []File{file("big.bpx", bigPackage(b))})
	srv := httptest.NewServer(s)
	defer srv.Close()
	listFirstPage(b, srv.Client(), srv.URL)
	b.ResetTimer()
	for range b.N {
		listFirstPage(b, srv.Client(), srv.URL)
	}
}

// BenchmarkList1000Cold is BenchmarkList1000 with a new Server for each
// request: opening the package and ordering the directory count, as
// they do for bpx ls.
func BenchmarkList1000Cold(b *testing.B) {
	big := bigPackage(b)
	h := &swapHandler{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	b.ResetTimer()
	for range b.N {
		s, err := New([]File{file("big.bpx", big)})
		if err != nil {
			b.Fatal(err)
		}
		h.h = s
		listFirstPage(b, srv.Client(), srv.URL)
		s.Close()
	}
}

// BenchmarkLsBaseline does what "bpx ls PACKAGE | head -1000" does: open
// the package file, and print the first 1000 names.
func BenchmarkLsBaseline(b *testing.B) {
	name := filepath.Join(b.TempDir(), "big.bpx")
	if err := os.WriteFile(name, bigPackage(b), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		p, err := pack.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		bad := p.InvalidPaths()
		out := bufio.NewWriterSize(io.Discard, 64<<10)
		for i, o := range p.Objects()[:1000] {
			if bad[i] != "" {
				b.Fatal("invalid name")
			}
			out.WriteString(o.Name)
			out.WriteByte('\n')
		}
		out.Flush()
		p.Close()
	}
}

// swapHandler serves with the handler h of the moment.
type swapHandler struct{ h http.Handler }

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h.ServeHTTP(w, r) }
