package bpx

import (
	"io"
	"sync"
)

// readChunk is the size of the reads of a compressed section's stored
// bytes: its decoder asks for 32 KiB (zlib) or 8 KiB (xz) at a time, and
// over HTTP (remote.File) each such read of a missing block costs a
// request. A default section (1 MiB) compresses to less than this, so
// decoding it costs one request, and one system call from a local file.
const readChunk = 256 << 10

// chunkedReads reads the stored bytes [.., end) of a compressed section
// from src in reads of readChunk bytes and serves its decoder's smaller
// reads from them; larger reads, and those that reach the end, go to src
// as they are.
type chunkedReads struct {
	src         io.ReaderAt
	end         int64
	buf         *[]byte // pooled, readChunk bytes; nil until the first read
	start, stop int64   // the offsets in src of the bytes buf holds
}

var chunkBufs = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

func (c *chunkedReads) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= c.start && at < c.stop {
			n += copy(p[n:], (*c.buf)[at-c.start:c.stop-c.start])
			continue
		}
		// A large read, or one of all the bytes left (the flat xz
		// decoder reads a section's stored bytes at once), is one read
		// already: no copy through the buffer.
		if len(p)-n >= readChunk || at+int64(len(p)-n) >= c.end {
			k, err := c.src.ReadAt(p[n:], at)
			return n + k, err
		}
		if c.buf == nil {
			c.buf = chunkBufs.Get().(*[]byte)
		}
		k, err := c.src.ReadAt((*c.buf)[:min(readChunk, c.end-at)], at)
		c.start, c.stop = at, at+int64(k)
		if k == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return n, err
		}
		// An error with some bytes: serve those first, and meet the
		// error again at the next read past them.
	}
	return n, nil
}

// release returns the buffer to its pool.
func (c *chunkedReads) release() {
	if c.buf != nil {
		chunkBufs.Put(c.buf)
		c.buf = nil
	}
	c.start, c.stop = 0, 0
}
