package explorer

import (
	"net/http"
	"strconv"
)

// browseRoutes registers the endpoints of the tree and the containers:
// /raw/, /api/files, /api/list, /api/invalid, /api/object,
// /api/container, /api/sections, /api/verify and /api/section.
func (s *Server) browseRoutes() {
	s.mux.HandleFunc("GET /raw/{path...}", s.serveRaw)
	s.mux.HandleFunc("GET /api/files", s.serveFiles)
	s.mux.HandleFunc("GET /api/list", s.serveList)
	s.mux.HandleFunc("GET /api/invalid", s.serveInvalid)
	s.mux.HandleFunc("GET /api/object", s.serveObject)
	s.mux.HandleFunc("GET /api/container", s.serveContainer)
	s.mux.HandleFunc("GET /api/sections", s.serveSections)
	s.mux.HandleFunc("GET /api/verify", s.serveVerify)
	s.mux.HandleFunc("GET /api/section", s.serveSection)
}

// intParam returns the query parameter name as an int64 in [0, max], or
// def when it is absent or empty.
func intParam(r *http.Request, name string, def, max int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequestf("%s=%q: want a number from 0", name, v)
	}
	if n > max {
		return 0, badRequestf("%s=%d: at most %d", name, n, max)
	}
	return n, nil
}

// pageParams returns offset= and limit= of a paged listing.
func pageParams(r *http.Request) (offset, limit int, err error) {
	o, err := intParam(r, "offset", 0, 1<<62)
	if err != nil {
		return 0, 0, err
	}
	l, err := intParam(r, "limit", DefaultListLimit, MaxListLimit)
	if err != nil {
		return 0, 0, err
	}
	return int(min(o, int64(^uint(0)>>1))), int(l), nil
}

// page returns the part [offset, offset+limit) of n items that exists.
func page(n, offset, limit int) (lo, hi int) {
	lo = min(offset, n)
	return lo, lo + min(limit, n-lo)
}
