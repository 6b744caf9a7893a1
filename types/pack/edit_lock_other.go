//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package pack

import "os"

// lockFile does nothing on systems without flock: the edit's change check
// alone guards it.
func lockFile(*os.File) {}
