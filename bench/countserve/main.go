// Command countserve serves the files of DIR over HTTP on 127.0.0.1 (with
// range requests, as a CDN does) and counts what it sends, for
// bench/sign.sh: it prints its base URL on its first line, and
// GET /__stats answers "REQUESTS BYTES" (the body bytes of the files sent
// since the last /__stats) and starts counting again.
//
// Usage: go run ./bench/countserve DIR
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: countserve DIR")
		os.Exit(2)
	}
	var requests, bytes atomic.Int64
	files := http.FileServer(http.Dir(os.Args[1]))
	mux := http.NewServeMux()
	mux.HandleFunc("/__stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d %d\n", requests.Swap(0), bytes.Swap(0))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if strings.Contains(r.Header.Get("Range"), ",") && multiRange(counter{w, &bytes}, r, os.Args[1]) {
			return
		}
		files.ServeHTTP(counter{w, &bytes}, r)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/\n", l.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(l, mux))
	os.Exit(1)
}

// counter counts the body bytes written through it.
type counter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c counter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// multiRange answers a request for several ranges as zsync 0.6.2 reads
// it: every part delimiter, the first too, preceded by CRLF, and a
// Content-Length (net/http writes the first delimiter without CRLF, which
// zsync 0.6.2 takes for the end of the answer: it asks again, forever). It reports false when it leaves the request to the file
// server (a range it cannot parse, a missing file).
func multiRange(w http.ResponseWriter, r *http.Request, dir string) bool {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(filepath.Clean("/"+r.URL.Path))))
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	size := fi.Size()
	type span struct{ first, last int64 }
	var spans []span
	for _, part := range strings.Split(strings.TrimPrefix(r.Header.Get("Range"), "bytes="), ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), "-")
		first, err1 := strconv.ParseInt(a, 10, 64)
		last, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || first > last || first >= size {
			return false
		}
		spans = append(spans, span{first, min(last, size-1)})
	}
	const boundary = "COUNTSERVE-BOUNDARY"
	part := func(s span) string {
		return fmt.Sprintf("\r\n--%s\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes %d-%d/%d\r\n\r\n", boundary, s.first, s.last, size)
	}
	end := fmt.Sprintf("\r\n--%s--\r\n", boundary)
	n := int64(len(end))
	for _, s := range spans {
		n += int64(len(part(s))) + s.last - s.first + 1
	}
	// A length, not chunked: zsync reads no chunked body.
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	w.Header().Set("Content-Type", "multipart/byteranges; boundary="+boundary)
	w.WriteHeader(http.StatusPartialContent)
	for _, s := range spans {
		io.WriteString(w, part(s))
		if _, err := io.Copy(w, io.NewSectionReader(f, s.first, s.last-s.first+1)); err != nil {
			return true
		}
	}
	io.WriteString(w, end)
	return true
}
