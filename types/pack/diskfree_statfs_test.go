//go:build linux || darwin

package pack

import "syscall"

// freeDisk returns the bytes available to an unprivileged user in the file
// system holding dir.
func freeDisk(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
