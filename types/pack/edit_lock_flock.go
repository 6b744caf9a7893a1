//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package pack

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f, waiting for
// another process or edit holding it. Failing to lock (a file system
// without locks) is not an error: the edit's change check still guards it.
func lockFile(f *os.File) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}
