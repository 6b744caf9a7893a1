package explorer

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// serveRaw answers /raw/{path}: the bytes of a file of the tree.
func (s *Server) serveRaw(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	if !fs.ValidPath(p) || p == "." {
		fail(w, badRequestf("%q is no file path of the tree", p))
		return
	}
	f, err := s.tree.Open(p)
	if err != nil {
		fail(w, err)
		return
	}
	defer f.Close()
	ra, size, err := readerAt(f, p)
	if err != nil {
		fail(w, err)
		return
	}
	if err := probe(ra, size); err != nil {
		fail(w, &fs.PathError{Op: "read", Path: p, Err: err})
		return
	}
	name := path.Base(p)
	if r.URL.Query().Get("download") == "1" {
		w.Header().Set("Content-Disposition", attachment(name))
	}
	serveBytes(w, r, name, contentType(name), io.NewSectionReader(ra, 0, size))
}

// serveObject answers /api/object: object I of package N, whatever its
// name, as an attachment named object-I.
func (s *Server) serveObject(w http.ResponseWriter, r *http.Request) {
	in, err := s.packageParam(r)
	if err != nil {
		fail(w, err)
		return
	}
	v := r.URL.Query().Get("index")
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(in.pkg.Objects()) {
		fail(w, &fs.PathError{Op: "open", Path: "object " + strconv.Quote(v), Err: fs.ErrNotExist})
		return
	}
	o, err := in.pkg.OpenObject(i)
	if err != nil {
		fail(w, err)
		return
	}
	defer o.Close()
	if err := probe(o, o.Size()); err != nil {
		fail(w, err)
		return
	}
	name := "object-" + strconv.Itoa(i)
	w.Header().Set("Content-Disposition", attachment(name))
	serveBytes(w, r, name, "application/octet-stream", o)
}

// probe reads the first and the last byte of r, so that a section that
// does not decompress or check is an error answer (422) before the status
// line goes out, rather than a body cut short. An object that spans more
// than two sections can still fail midway.
func probe(r io.ReaderAt, size int64) error {
	var b [1]byte
	for _, off := range []int64{0, size - 1} {
		if off < 0 {
			continue
		}
		if _, err := r.ReadAt(b[:], off); err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

// packageParam returns the file a request names with file=N, which must
// be a package that opened.
func (s *Server) packageParam(r *http.Request) (*input, error) {
	in, err := s.fileParam(r)
	if err != nil {
		return nil, err
	}
	if in.pkg == nil {
		return nil, notPackage(in)
	}
	return in, nil
}

// notPackage is the error of a file=N that names no opened package.
func notPackage(in *input) error {
	if in.err != nil {
		return in.err
	}
	return badRequestf("file %d (%s) is not a package", in.id, in.name)
}

// serveBytes serves content with Range support, never sniffing its type,
// under the sandboxing policy of raw bytes.
func serveBytes(w http.ResponseWriter, r *http.Request, name, ctype string, content io.ReadSeeker) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Security-Policy", rawCSP)
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, content)
}

// contentType is the type of a file named name from its extension only:
// application/octet-stream when the extension says nothing.
func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// attachment is the Content-Disposition of a download named name: a
// quoted filename for printable ASCII names, else the RFC 6266
// filename*=UTF-8” form.
func attachment(name string) string {
	plain := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c >= 0x7F {
			plain = false
			break
		}
	}
	if plain {
		return `attachment; filename="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
	}
	var b strings.Builder
	b.WriteString("attachment; filename*=UTF-8''")
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isAttrChar(c) {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
		}
	}
	return b.String()
}

// isAttrChar reports whether c may stand unencoded in an RFC 5987 value.
func isAttrChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}
