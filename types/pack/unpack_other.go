//go:build !linux

package pack

import "os"

type sysDir struct{}

func (sysDir) close() {}

// create opens base in the directory with flag.
func (e *dirEntry) create(base string, flag int) (*os.File, error) {
	return e.root.OpenFile(base, flag, 0o644)
}
