//go:build linux

package pack

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sysDir (Linux: syscall.Openat is not in package syscall on every Unix)
// holds a descriptor of its directory, opened on first use, so that each
// file costs one openat, its writes and one close: no poller registration
// or mode changes as for an *os.File.
type sysDir struct {
	dir *os.File
}

func (s *sysDir) close() {
	if s.dir != nil {
		s.dir.Close()
		s.dir = nil
	}
}

// create opens base in the directory with flag (os.O_* values). O_NOFOLLOW
// makes a symbolic link at base an error instead of a way out of it.
func (e *dirEntry) create(base string, flag int) (rawFile, error) {
	if e.sys.dir == nil {
		f, err := e.root.Open(".")
		if err != nil {
			return -1, err
		}
		e.sys.dir = f
	}
	for {
		fd, err := syscall.Openat(int(e.sys.dir.Fd()), base, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
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

// setTimeOpen sets the access and modification times of f to t
// (utimensat with no path: the descriptor's file), and reports whether it
// did: not for a time the platform's timespec cannot hold (seconds past
// 2038 where they are 32 bits, or past 2262), which Unpack then sets by
// name, as well as the system can.
func setTimeOpen(f rawFile, t time.Time) bool {
	sec := t.Unix()
	if sec < -9e9 || sec > 9e9 || unsafe.Sizeof(syscall.Timespec{}.Sec) == 4 && int64(int32(sec)) != sec {
		return false
	}
	one := syscall.NsecToTimespec(sec * 1e9)
	ts := [2]syscall.Timespec{one, one}
	_, _, e := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(f), 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return e == 0
}
