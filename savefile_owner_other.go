//go:build !unix

package bpx

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no Unix owner and group: on
// Windows a new file gets the directory's inherited access rules.
func keepOwner(*os.File, fs.FileInfo) {}
