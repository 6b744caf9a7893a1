package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/types/pack"
)

// streamOverHTTP serves the package at pkgPath from 127.0.0.1 and, as the
// music workload does, opens it with package remote's defaults, seeks to
// the middle of name and reads 128 KiB; it returns the bytes the server
// sent and the requests it answered (issue 43 goal 2: at most 1 MiB).
func streamOverHTTP(pkgPath, name string) (sent int64, requests int64, err error) {
	f, err := os.Open(pkgPath)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	var n, reqs atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		body := &countingReadSeeker{r: io.NewSectionReader(f, 0, fi.Size()), n: &n}
		http.ServeContent(w, r, "game.bpx", fi.ModTime(), body)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rf, err := remote.Open(ctx, "http://"+ln.Addr().String()+"/game.bpx")
	if err != nil {
		return 0, 0, err
	}
	defer rf.Close()
	p, err := pack.NewReader(rf, rf.Size())
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	if _, err := stream(p, name); err != nil {
		return 0, 0, err
	}
	return n.Load(), reqs.Load(), nil
}

// countingReadSeeker counts the bytes read through it: what the server
// sends of the file.
type countingReadSeeker struct {
	r *io.SectionReader
	n *atomic.Int64
}

func (c *countingReadSeeker) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n.Add(int64(k))
	return k, err
}

func (c *countingReadSeeker) Seek(off int64, whence int) (int64, error) {
	return c.r.Seek(off, whence)
}

// printStreamOverHTTP prints streamOverHTTP's figures as one line.
func printStreamOverHTTP(pkgPath, name string) {
	sent, reqs, err := streamOverHTTP(pkgPath, name)
	if err != nil {
		fail(fmt.Errorf("music over HTTP: %w", err))
	}
	fmt.Printf("\nmusic over HTTP (package remote, a server on 127.0.0.1): open, seek to the middle of %s, 128 KiB: %s sent in %d requests\n", name, mib(sent), reqs)
}
