package overlay

import (
	"io/fs"

	"github.com/gobpx/bpx/internal/subfs"
)

// Sub returns the subtree of the stack rooted at dir, implementing
// fs.SubFS. Like fs.Sub it does not check that dir exists. The result
// implements fs.ReadFileFS, fs.ReadDirFS, fs.StatFS and fs.SubFS too, and
// its errors name paths relative to dir.
func (f *FS) Sub(dir string) (fs.FS, error) { return subfs.New(f, dir) }
