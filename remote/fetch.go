package remote

import (
	"fmt"
	"io/fs"
)

// FetchAt reads len(p) bytes at off, as ReadAt does, with one request for
// exactly those bytes (and its retries), past the cache: it takes nothing
// from the cache, puts nothing in it and starts no read-ahead. For callers
// that plan their own requests, such as a pull that merges the ranges it
// needs and fetches a few at once. len(p) bounds what it allocates.
func (f *File) FetchAt(p []byte, off int64) (int, error) {
	return f.readAt("FetchAt", p, off, f.fetchExact)
}

// fetchExact fetches the bytes of p at off, which lie in the file.
func (f *File) fetchExact(p []byte, off int64) error {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return fmt.Errorf("remote: FetchAt %s: %w", f.name, fs.ErrClosed)
	}
	data, err := f.get(off, off+int64(len(p)), false)
	if err != nil {
		return err
	}
	copy(p, data)
	return nil
}
