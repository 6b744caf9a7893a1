//go:build !linux

package pack

import "os"

type sysDir struct{}

func (sysDir) close() {}

// create opens base in root with flag.
func (d *dirCache) create(root *os.Root, base string, flag int) (*os.File, error) {
	return root.OpenFile(base, flag, 0o644)
}
