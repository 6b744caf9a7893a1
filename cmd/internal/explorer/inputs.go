package explorer

import (
	"io"
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// input is one file given to New, opened as far as it goes.
type input struct {
	id    int
	name  string // as given: a file name or URL
	label string // its entry in the tree when files are mounted by name
	r     io.ReaderAt
	size  int64
	rd    *bpx.Reader   // nil when the file is no BPX file
	pkg   *pack.Package // non-nil for a package that opened
	err   error         // why rd or pkg is nil

	badOnce sync.Once
	bad     invalidSet // the package's objects left out of the tree
}

// invalidSet is the objects of a package whose names are not paths of
// the tree: their indexes, sorted, and why.
type invalidSet struct {
	indexes []int
	why     map[int]string
}

// invalid returns the objects of in's package that the tree leaves out,
// found once.
func (in *input) invalid() *invalidSet {
	in.badOnce.Do(func() {
		in.bad.why = in.pkg.InvalidPaths()
		in.bad.indexes = slices.Sorted(maps.Keys(in.bad.why))
	})
	return &in.bad
}

// maxXZDictionary is the largest xz dictionary a section read by the
// server may declare (bpx.WithMaxXZDictionary): the decoder allocates the
// declared dictionary whatever the section holds, for every request that
// reads from the section (a /raw of a five-byte object included), and
// outside the preview budget. 8 MiB is what package writers declare at
// most (pack.Writer; the reference's 256 KiB); a section declaring more
// fails with bpx.ErrTooLarge (413).
const maxXZDictionary = 8 << 20

// openInputs opens each file as a container and, when it is one, as a
// package. Failures are kept in the input, for the page to show.
func openInputs(files []File) []*input {
	ins := make([]*input, len(files))
	used := map[string]bool{}
	for i, f := range files {
		in := &input{id: i, name: f.Name, r: f.R, size: f.Size}
		in.label = uniqueLabel(fileLabel(f.Name, i), used)
		in.rd, in.err = bpx.NewReader(f.R, f.Size, bpx.WithMaxXZDictionary(maxXZDictionary))
		if in.err == nil && in.rd.Header.Type == bpx.TypePackage {
			in.pkg, in.err = pack.New(in.rd, pack.IgnoreTypeExt(), pack.WithMaxPathLength(MaxPathLength))
			if in.err == nil {
				// The explorer lists every object: the tables now, their
				// errors as the package's (see pack.LoadTables).
				if in.err = in.pkg.LoadTables(); in.err != nil {
					in.pkg = nil
				}
			}
		}
		ins[i] = in
	}
	return ins
}

// fileLabel is the last element of a file name or URL path, or "file-N"
// when that is no valid single path element.
func fileLabel(name string, i int) string {
	if u, err := url.Parse(name); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		name = u.Path
	}
	name = strings.ReplaceAll(name, `\`, "/")
	base := path.Base(name)
	if base == "." || base == ".." || base == "/" || base == "" || strings.ContainsAny(base, "\x00") {
		return "file-" + strconv.Itoa(i)
	}
	return base
}

// uniqueLabel returns label, or label~2, label~3... when it is taken.
func uniqueLabel(label string, used map[string]bool) string {
	l := label
	for n := 2; used[l]; n++ {
		l = label + "~" + strconv.Itoa(n)
	}
	used[l] = true
	return l
}
