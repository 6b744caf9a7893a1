//go:build linux

package pack

import (
	"os"
	"syscall"
)

// sysDir (Linux: syscall.Openat is not in package syscall on every Unix)
// holds the descriptor of the directory files are created in, so
// that each file costs one openat, its writes and one close: no poller
// registration or mode changes as for an *os.File.
type sysDir struct {
	root *os.Root // the directory dir belongs to
	dir  *os.File
}

func (s *sysDir) close() {
	if s.dir != nil {
		s.dir.Close()
		s.dir, s.root = nil, nil
	}
}

// create opens base in root with flag (os.O_* values). O_NOFOLLOW makes a
// symbolic link at base an error instead of a way out of the directory.
func (d *dirCache) create(root *os.Root, base string, flag int) (rawFile, error) {
	s := &d.sys
	if s.root != root {
		s.close()
		f, err := root.Open(".")
		if err != nil {
			return -1, err
		}
		s.root, s.dir = root, f
	}
	for {
		fd, err := syscall.Openat(int(s.dir.Fd()), base, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, err
		}
		return rawFile(fd), nil
	}
}

// rawFile is a file descriptor written with plain system calls.
type rawFile int

func (f rawFile) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := syscall.Write(int(f), b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if k == 0 {
			return n, syscall.EIO
		}
		n += k
	}
	return n, nil
}

func (f rawFile) Close() error { return syscall.Close(int(f)) }
