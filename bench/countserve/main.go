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
	"net"
	"net/http"
	"os"
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
