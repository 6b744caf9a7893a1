//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package pull

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f without
// waiting, and reports false when another process holds it. A file system
// without locks counts as locked by this pull.
func lockFile(f *os.File) bool {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false
		case !errors.Is(err, syscall.EINTR):
			return true
		}
	}
}
