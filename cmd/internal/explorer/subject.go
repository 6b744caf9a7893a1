package explorer

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// subject is the file a preview request names with file=N or path=P,
// a BPX container or not.
type subject struct {
	name  string // the path, or the file's name, for messages
	path  string // its path in the tree, "" when it has none
	query string // "file=N" or "path=P", escaped: how the answer's URLs name it
	ra    io.ReaderAt
	size  int64
	rd    *bpx.Reader   // nil when the bytes are no BPX container
	rdErr error         // why rd is nil
	pkg   *pack.Package // the opened package of a file given to New, if it is one
	close func() error
}

// Close releases the subject.
func (sub *subject) Close() error {
	if sub.close != nil {
		return sub.close()
	}
	return nil
}

// rawURL is the /raw/ URL of the subject, or "" when it is no file of the
// tree.
func (sub *subject) rawURL() string {
	if sub.path == "" {
		return ""
	}
	return "/raw/" + escapePath(sub.path)
}

// escapePath escapes each element of a tree path for a URL path.
func escapePath(p string) string {
	els := strings.Split(p, "/")
	for i, e := range els {
		els[i] = url.PathEscape(e)
	}
	return strings.Join(els, "/")
}

// subject opens the file a request names: file=N (a file given to New)
// or path=P (a file of the tree), a BPX container or not (see
// containerSubject). The caller closes it.
func (s *Server) subject(r *http.Request) (*subject, error) {
	q := r.URL.Query()
	if q.Has("file") {
		in, err := s.fileParam(r)
		if err != nil {
			return nil, err
		}
		sub := inputSubject(in, "file="+strconv.Itoa(in.id))
		if s.tree.byLabel[in.label] == in {
			sub.path = in.label
		}
		return sub, nil
	}
	if !q.Has("path") {
		return nil, badRequestf("want file=N or path=P")
	}
	p := q.Get("path")
	query := "path=" + url.QueryEscape(p)
	if in := s.tree.byLabel[p]; in != nil {
		sub := inputSubject(in, query)
		sub.path = p
		return sub, nil
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
	sub := &subject{name: p, path: p, query: query, ra: ra, size: size, close: f.Close}
	sub.rd, sub.rdErr = bpx.NewReader(ra, size, bpx.WithMaxSectionSize(MaxPreviewBytes), bpx.WithMaxSections(maxNestedSections),
		bpx.WithMaxXZDictionary(maxXZDictionary))
	return sub, nil
}

// maxNestedSections bounds the section table of a BPX file inside the
// tree (an object of a package), checked before the table is read: each
// request opening it parses the table (80 bytes a section, 5 MiB at
// most), and a table of millions compresses to kilobytes. A file with
// more is no readable container (/raw still serves it); the files given
// to New are parsed once and have no such bound.
const maxNestedSections = 1 << 16

// inputSubject is the subject of a file given to New.
func inputSubject(in *input, query string) *subject {
	sub := &subject{name: in.name, query: query, ra: in.r, size: in.size, rd: in.rd, pkg: in.pkg}
	if in.rd == nil {
		sub.rdErr = in.err
	}
	return sub
}

// readAll reads the whole subject, which must hold at most limit bytes
// (a decoder's share of MaxPreviewBytes).
func (sub *subject) readAll(limit int64) ([]byte, error) {
	if sub.size > limit {
		return nil, fmt.Errorf("%s: %d bytes, above the preview limit of %d for this kind: %w", sub.name, sub.size, limit, bpx.ErrTooLarge)
	}
	b := make([]byte, sub.size)
	n, err := sub.ra.ReadAt(b, 0)
	if n == len(b) {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("%s: %w", sub.name, err)
}

// head reads the first n bytes of the subject at most.
func (sub *subject) head(n int) ([]byte, error) {
	n = int(min(int64(n), sub.size))
	b := make([]byte, n)
	m, err := sub.ra.ReadAt(b, 0)
	if m == n {
		return b, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("%s: %w", sub.name, err)
}

// checkPreviewSize fails with an error matching bpx.ErrTooLarge when n
// bytes are more than one preview may decode.
func checkPreviewSize(name string, n int64) error {
	if n < 0 || n > MaxPreviewBytes {
		return fmt.Errorf("%s: %d bytes to decode, above the preview limit of %d: %w", name, n, MaxPreviewBytes, bpx.ErrTooLarge)
	}
	return nil
}

// sectionData reads section sec decompressed, when it is within the
// preview limit.
func sectionData(name string, sec *bpx.Section) ([]byte, error) {
	if err := checkPreviewSize(fmt.Sprintf("%s: section %d", name, sec.Index), int64(sec.USize)); err != nil {
		return nil, err
	}
	b, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: section %d: %w", name, sec.Index, err)
	}
	return b, nil
}

// notFoundf returns an error matching fs.ErrNotExist (status 404).
func notFoundf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, fs.ErrNotExist)...)
}

// containerSubject opens the BPX container a request names, as subject
// does; a file that is no BPX container is an error. The caller closes
// it.
func (s *Server) containerSubject(r *http.Request) (*subject, error) {
	sub, err := s.subject(r)
	if err != nil {
		return nil, err
	}
	if sub.rd == nil {
		sub.Close()
		return nil, sub.rdErr
	}
	return sub, nil
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
