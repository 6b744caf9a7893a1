// Package spool holds section bodies for the BPX writer until they can be
// written out: in memory up to a limit, then in temporary files, so that the
// memory a writer uses does not grow with the size of what it writes.
//
// A Buffer collects one body. While it is written it keeps up to its limit
// in memory (in fixed-size chunks, so growth never copies) and moves
// everything to a temporary file of its own beyond that. A finished
// in-memory Buffer can be moved into a Shared file to give its memory back.
// Remove releases a Buffer's memory and deletes its temporary file.
package spool

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// ChunkSize is the size of the memory chunks a Buffer fills after its first
// one. The first chunk grows by doubling up to ChunkSize, so small bodies
// stay small.
const ChunkSize = 256 << 10

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, ChunkSize); return &b }}

// Buffer holds one body: in memory while it is at most limit bytes, in a
// temporary file beyond. It is not safe for concurrent use, except that
// WriteTo may run concurrently with other Buffers' methods.
type Buffer struct {
	dir    string
	limit  int64
	chunks [][]byte // in-memory data; all but the last are full ChunkSize chunks
	size   int64

	f    *os.File // own temporary file while open for writing
	name string   // own temporary file, once spilled

	shared *Shared // set once moved into a shared file
	off    int64   // offset of the body in shared
}

// New returns an empty Buffer that keeps up to limit bytes in memory and
// creates its temporary file, if needed, in dir ("" for os.TempDir()).
// A negative limit means no limit.
func New(dir string, limit int64) *Buffer { return &Buffer{dir: dir, limit: limit} }

// Size returns the number of bytes written.
func (b *Buffer) Size() int64 { return b.size }

// Footprint returns the bytes of memory the Buffer holds.
func (b *Buffer) Footprint() int64 {
	var n int64
	for _, c := range b.chunks {
		n += int64(cap(c))
	}
	return n
}

// InMemory reports whether the data is held in memory (rather than in a
// file). An empty Buffer is in memory.
func (b *Buffer) InMemory() bool { return b.name == "" && b.shared == nil }

// Write appends p. It never returns a short count without an error.
func (b *Buffer) Write(p []byte) (int, error) {
	if b.shared != nil {
		return 0, errors.New("spool: write to a moved buffer")
	}
	if b.name == "" && b.limit >= 0 && b.size+int64(len(p)) > b.limit {
		if err := b.spill(); err != nil {
			return 0, err
		}
	}
	if b.name != "" {
		if b.f == nil {
			return 0, errors.New("spool: write to a finished buffer")
		}
		n, err := b.f.Write(p)
		b.size += int64(n)
		return n, err
	}
	n := len(p)
	for len(p) > 0 {
		last := len(b.chunks) - 1
		if last < 0 || len(b.chunks[last]) == ChunkSize {
			b.chunks = append(b.chunks, b.newChunk(len(p)))
			last++
		}
		c := b.chunks[last]
		if len(c) == cap(c) { // the first, growing chunk is full
			c = growChunk(c, len(p))
		}
		k := min(len(p), cap(c)-len(c))
		c = append(c, p[:k]...)
		b.chunks[last] = c
		p = p[k:]
		b.size += int64(k)
	}
	return n, nil
}

// newChunk returns an empty chunk: a pooled full-size one, or a small one
// for the very first bytes of the buffer.
func (b *Buffer) newChunk(want int) []byte {
	if len(b.chunks) == 0 && want < ChunkSize/2 {
		return make([]byte, 0, max(want, 512))
	}
	return (*chunkPool.Get().(*[]byte))[:0]
}

// growChunk doubles the capacity of the first chunk, up to ChunkSize.
func growChunk(c []byte, want int) []byte {
	n := min(ChunkSize, max(2*cap(c), len(c)+want))
	g := make([]byte, len(c), n)
	copy(g, c)
	return g
}

// spill moves the in-memory data to a new temporary file.
func (b *Buffer) spill() error {
	f, err := os.CreateTemp(b.dir, "bpx-spool-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	for _, c := range b.chunks {
		if _, err := f.Write(c); err != nil {
			f.Close()
			os.Remove(f.Name())
			return fmt.Errorf("spool: %w", err)
		}
	}
	b.freeChunks()
	b.f, b.name = f, f.Name()
	return nil
}

// Finish ends writing. A file-backed Buffer closes its file descriptor (the
// data stays on disk until Remove), so finished buffers hold no descriptors.
// An in-memory Buffer trims the unused tail of its last chunk.
func (b *Buffer) Finish() error {
	if b.f == nil {
		if last := len(b.chunks) - 1; last >= 0 && cap(b.chunks[last])-len(b.chunks[last]) > 4<<10 {
			c := b.chunks[last]
			b.chunks[last] = append([]byte(nil), c...)
			if cap(c) == ChunkSize {
				c = c[:0]
				chunkPool.Put(&c)
			}
		}
		return nil
	}
	err := b.f.Close()
	b.f = nil
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// WriteTo writes the whole body to w. It may be called more than once, and
// only after Finish for a file-backed Buffer.
func (b *Buffer) WriteTo(w io.Writer) (int64, error) {
	switch {
	case b.shared != nil:
		return b.shared.copyRange(w, b.off, b.size)
	case b.name != "":
		if b.f != nil {
			return 0, errors.New("spool: WriteTo before Finish")
		}
		f, err := os.Open(b.name)
		if err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
		defer f.Close()
		n, err := io.Copy(w, io.LimitReader(f, b.size))
		if err == nil && n != b.size {
			err = fmt.Errorf("spool: temporary file %s shrank to %d bytes, want %d", b.name, n, b.size)
		}
		return n, err
	}
	var n int64
	for _, c := range b.chunks {
		k, err := w.Write(c)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// AppendTo appends the whole body to dst and returns the extended slice,
// growing dst at most once, to exactly the size needed: a body read back
// for an in-memory compressor costs one copy of it (a bytes.Buffer filled
// by WriteTo would double as it grows). On error dst is returned
// unchanged. Like WriteTo, it may only be called after Finish for a
// file-backed Buffer.
func (b *Buffer) AppendTo(dst []byte) ([]byte, error) {
	if int64(cap(dst)-len(dst)) < b.size {
		if b.size > int64(maxInt-len(dst)) {
			return dst, fmt.Errorf("spool: a body of %d bytes does not fit in memory", b.size)
		}
		dst = slices.Grow(dst, int(b.size))
	}
	orig := len(dst)
	out := dst[:orig+int(b.size)]
	var err error
	switch {
	case b.shared != nil:
		err = b.shared.readAt(out[orig:], b.off)
	case b.name != "":
		err = b.readFile(out[orig:])
	default:
		p := out[orig:]
		for _, c := range b.chunks {
			p = p[copy(p, c):]
		}
	}
	if err != nil {
		return dst[:orig], err
	}
	return out, nil
}

const maxInt = int(^uint(0) >> 1)

// readFile fills p from the start of the Buffer's own file.
func (b *Buffer) readFile(p []byte) error {
	if b.f != nil {
		return errors.New("spool: AppendTo before Finish")
	}
	f, err := os.Open(b.name)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer f.Close()
	if n, err := io.ReadFull(f, p); err != nil {
		return fmt.Errorf("spool: temporary file %s holds %d of %d bytes: %w", b.name, n, len(p), err)
	}
	return nil
}

// MoveTo appends an in-memory body to s and releases its memory. It does
// nothing for a body that is already in a file.
func (b *Buffer) MoveTo(s *Shared) error {
	if !b.InMemory() {
		return nil
	}
	off, err := s.append(b.chunks)
	if err != nil {
		return err
	}
	b.freeChunks()
	b.shared, b.off = s, off
	return nil
}

// Remove releases the memory and deletes the temporary file, if any. The
// Buffer must not be used afterwards. Remove is idempotent.
func (b *Buffer) Remove() error {
	b.freeChunks()
	var err error
	if b.f != nil {
		err = b.f.Close()
		b.f = nil
	}
	if b.name != "" {
		if rerr := os.Remove(b.name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
		b.name = ""
	}
	b.shared = nil
	b.size = 0
	return err
}

func (b *Buffer) freeChunks() {
	for _, c := range b.chunks {
		if cap(c) == ChunkSize {
			c = c[:0]
			chunkPool.Put(&c)
		}
	}
	b.chunks = nil
}

// Shared is one temporary file that finished in-memory bodies are moved
// into, so that many small bodies never need a file each. It is safe for
// concurrent use.
type Shared struct {
	dir  string
	mu   sync.Mutex
	f    *os.File
	size int64
}

// NewShared returns a Shared that creates its file in dir on first use.
func NewShared(dir string) *Shared { return &Shared{dir: dir} }

func (s *Shared) append(chunks [][]byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, "bpx-spool-*")
		if err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
		s.f = f
	}
	off := s.size
	for _, c := range chunks {
		n, err := s.f.WriteAt(c, s.size)
		s.size += int64(n)
		if err != nil {
			return 0, fmt.Errorf("spool: %w", err)
		}
	}
	return off, nil
}

func (s *Shared) copyRange(w io.Writer, off, n int64) (int64, error) {
	s.mu.Lock()
	f := s.f
	s.mu.Unlock()
	if f == nil {
		return 0, errors.New("spool: shared file is closed")
	}
	k, err := io.Copy(w, io.NewSectionReader(f, off, n))
	if err == nil && k != n {
		err = fmt.Errorf("spool: shared temporary file %s is short: %d of %d bytes", f.Name(), k, n)
	}
	return k, err
}

func (s *Shared) readAt(p []byte, off int64) error {
	s.mu.Lock()
	f := s.f
	s.mu.Unlock()
	if f == nil {
		return errors.New("spool: shared file is closed")
	}
	if n, err := f.ReadAt(p, off); n < len(p) {
		return fmt.Errorf("spool: shared temporary file %s is short: %d of %d bytes at %d: %w", f.Name(), n, len(p), off, err)
	}
	return nil
}

// Remove closes and deletes the file. It is idempotent.
func (s *Shared) Remove() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); rerr != nil && err == nil {
		err = rerr
	}
	s.f = nil
	return err
}
