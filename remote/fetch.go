package remote

import (
	"fmt"
	"io"
	"io/fs"
)

// FetchAt reads len(p) bytes at off, as ReadAt does, with one request for
// exactly those bytes (and its retries), past the cache: it takes nothing
// from the cache, puts nothing in it and starts no read-ahead. For callers
// that plan their own requests, such as a pull that merges the ranges it
// needs and fetches a few at once. len(p) bounds what it allocates.
func (f *File) FetchAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("remote: FetchAt %s: negative offset %d", f.name, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	if n == 0 {
		return 0, nil
	}
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return 0, fmt.Errorf("remote: FetchAt %s: %w", f.name, fs.ErrClosed)
	}
	data, err := f.get(off, off+int64(n), false)
	if err != nil {
		return 0, err
	}
	copy(p, data)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
