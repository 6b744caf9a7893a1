//go:build !linux

package pack

import (
	"os"
	"time"
)

// setTimeOpen reports that it cannot set the times of an open file here:
// Unpack sets them by name once the file is closed.
func setTimeOpen(*os.File, time.Time) bool { return false }

type sysDir struct{}

func (sysDir) close() {}

// create opens base in the directory with flag.
func (e *dirEntry) create(base string, flag int) (*os.File, error) {
	return e.root.OpenFile(base, flag, 0o644)
}
