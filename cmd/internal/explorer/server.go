package explorer

import (
	"io"
	"net"
	"net/http"
	"path"
	"strings"
)

// Limits of the server; see the package doc.
const (
	// MaxListLimit is the largest page of a listing.
	MaxListLimit = 5000
	// DefaultListLimit is the page size when limit is not given.
	DefaultListLimit = 500
	// MaxPageBytes bounds the JSON of the entries of a page of a listing,
	// of the invalid names and of a section table: a page ends before the
	// entry that would pass it (it holds one entry at least).
	MaxPageBytes = 1 << 20
	// MaxPathLength is the longest object name that is a path of the
	// tree (PATH_MAX on Linux); longer names are left out of it, as
	// names that are not valid paths are.
	MaxPathLength = 4096
	// MaxPreviewBytes is the preview budget: the bytes that all the
	// previews decoding at once may hold together, each what its decoding
	// takes at most (its input times its decoder's factor, and its
	// answer). A preview that needs more than the whole budget is refused
	// (413).
	MaxPreviewBytes = 192 << 20
)

// File is one BPX file to explore: its name (a file name or URL, shown on
// the page and naming its entry in the tree) and its bytes.
type File struct {
	Name string
	R    io.ReaderAt
	Size int64
}

// Option configures a Server.
type Option func(*config)

type config struct {
	layers bool
	hosts  []string
}

// WithLayers makes the files one stack: the first a base package, each
// following one a mod package layered over the previous ones (see package
// github.com/gobpx/bpx/overlay). The tree is then the stack's.
func WithLayers() Option { return func(c *config) { c.layers = true } }

// WithHosts allows requests whose Host header names one of hosts, besides
// localhost and IP addresses (which are always allowed).
func WithHosts(hosts ...string) Option {
	return func(c *config) { c.hosts = append(c.hosts, hosts...) }
}

// Server serves the explorer. It is an http.Handler, safe for concurrent
// use.
type Server struct {
	cfg    config
	files  []*input
	tree   *tree
	mux    *http.ServeMux
	budget *budget   // the bytes previews hold now (budget.go)
	lists  listCache // ordered listings of recent directories (list.go)
}

// New returns a Server for files. A file that is not a BPX file (or not a
// package, with WithLayers) does not fail New: the page shows why it
// could not be opened. New opens no other file; the Server reads files
// only through their R.
func New(files []File, opts ...Option) (*Server, error) {
	s := &Server{budget: newBudget(MaxPreviewBytes)}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.files = openInputs(files)
	t, err := newTree(s.files, s.cfg.layers)
	if err != nil {
		return nil, err
	}
	s.tree = t
	s.mux = http.NewServeMux()
	s.routes()
	return s, nil
}

// Close releases what the Server holds (package caches). It does not
// close the files' readers, which belong to the caller.
func (s *Server) Close() error {
	for _, in := range s.files {
		if in.pkg != nil {
			in.pkg.Close()
		}
	}
	return nil
}

// routes registers every endpoint.
func (s *Server) routes() {
	s.assetRoutes()
	s.browseRoutes()
	s.previewRoutes()
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, badRequestf("no such page: %s", r.URL.Path))
	})
}

// ServeHTTP checks the method and the Host, sets the security headers and
// serves the request, its writes under deadlines (see writeIdle).
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := newDeadlineWriter(rw) // every write has a deadline (deadline.go)
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, badRequestf("method %s not allowed: the explorer is read-only", r.Method))
		return
	}
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusForbidden, badRequestf("host %q not allowed (see bpx serve --addr)", r.Host))
		return
	}
	// The mux would redirect a path with "..", "." or "//" elements to its
	// clean form; refuse it instead, so that no such path reaches a
	// handler or leads anywhere.
	if p := r.URL.Path; p != path.Clean(p) && p != path.Clean(p)+"/" {
		writeError(w, http.StatusBadRequest, badRequestf("path %q is not canonical", p))
		return
	}
	r, release := withGrants(r)
	defer release()
	s.mux.ServeHTTP(w, r)
}

// pageCSP allows the page's own scripts, styles, images and fonts only.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
	"font-src 'self'; connect-src 'self'; media-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// rawCSP is the policy of raw object bytes: shown in a tab of its own, an
// HTML or SVG object runs no script and loads nothing.
const rawCSP = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'"

// hostAllowed reports whether a request for host (the Host header) may be
// answered: localhost, an IP address, or a host given with WithHosts.
func (s *Server) hostAllowed(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if strings.EqualFold(name, "localhost") || net.ParseIP(name) != nil {
		return true
	}
	for _, a := range s.cfg.hosts {
		if strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}
