package explorer

import (
	"io"
	"io/fs"
	"net/http"
	"strconv"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// target is the BPX file a request names with file=N or path=P.
type target struct {
	name string        // for messages: the file's name or the path
	in   *input        // the file given to New, or nil for a path inside a package
	rd   *bpx.Reader   // the container
	pkg  *pack.Package // the opened package of a file given to New, if it is one
	// bytes reads the whole file, for previews that need its raw bytes.
	bytes io.ReaderAt
	size  int64
	close func() error
}

// Close releases the target.
func (t *target) Close() error {
	if t.close != nil {
		return t.close()
	}
	return nil
}

// fileParam returns the file a request names with file=N.
func (s *Server) fileParam(r *http.Request) (*input, error) {
	v := r.URL.Query().Get("file")
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n >= len(s.files) {
		return nil, &fs.PathError{Op: "open", Path: "file " + strconv.Quote(v), Err: fs.ErrNotExist}
	}
	return s.files[n], nil
}

// target opens the BPX file a request names: file=N (a file given to
// New) or path=P (a file of the tree, which must be a BPX file). The
// caller closes it.
func (s *Server) target(r *http.Request) (*target, error) {
	q := r.URL.Query()
	if q.Has("file") {
		in, err := s.fileParam(r)
		if err != nil {
			return nil, err
		}
		return inputTarget(in)
	}
	if !q.Has("path") {
		return nil, badRequestf("want file=N or path=P")
	}
	p := q.Get("path")
	if in := s.tree.byLabel[p]; in != nil {
		return inputTarget(in)
	}
	f, err := s.tree.Open(p)
	if err != nil {
		return nil, err
	}
	ra, size, err := readerAt(f, p)
	if err != nil {
		f.Close()
		return nil, err
	}
	rd, err := bpx.NewReader(ra, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &target{name: p, rd: rd, bytes: ra, size: size, close: f.Close}, nil
}

// inputTarget is the target of a file given to New.
func inputTarget(in *input) (*target, error) {
	if in.rd == nil {
		return nil, in.err
	}
	return &target{name: in.name, in: in, rd: in.rd, pkg: in.pkg, bytes: in.r, size: in.size}, nil
}

// readerAt returns the io.ReaderAt and size of an opened regular file of
// the tree (package objects and leaves implement io.ReaderAt).
func readerAt(f fs.File, p string) (io.ReaderAt, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.IsDir() {
		return nil, 0, &fs.PathError{Op: "open", Path: p, Err: errIsDir}
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		return nil, 0, &fs.PathError{Op: "open", Path: p, Err: errNoReaderAt}
	}
	return ra, fi.Size(), nil
}

var (
	errIsDir      = badRequestf("is a directory")
	errNoReaderAt = badRequestf("cannot be read at random")
)
