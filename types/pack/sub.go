package pack

import (
	"io/fs"

	"github.com/gobpx/bpx/internal/subfs"
)

// Sub returns the subtree of the package rooted at dir, implementing
// fs.SubFS. Like fs.Sub it does not check that dir exists. The result keeps
// the package's fast paths: it implements fs.ReadFileFS, fs.ReadDirFS,
// fs.StatFS and fs.SubFS too, and its errors name paths relative to dir.
func (p *Package) Sub(dir string) (fs.FS, error) { return subfs.New(p, dir) }
