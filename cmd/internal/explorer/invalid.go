package explorer

import (
	"net/http"
	"slices"
	"strconv"
)

// invalidAnswer is the answer of /api/invalid.
type invalidAnswer struct {
	Total   int           `json:"total"`
	Offset  int           `json:"offset"`
	Entries []invalidJSON `json:"entries"`
}

// invalidJSON is an object whose name is no valid path.
type invalidJSON struct {
	Index int    `json:"index"`
	Name  string `json:"name"` // strconv.Quote of the stored name
	Size  uint64 `json:"size"`
}

// serveInvalid answers /api/invalid: one page of the objects of package N
// that the tree leaves out, in index order.
func (s *Server) serveInvalid(w http.ResponseWriter, r *http.Request) {
	in, err := s.packageParam(r)
	if err != nil {
		fail(w, err)
		return
	}
	offset, limit, err := pageParams(r)
	if err != nil {
		fail(w, err)
		return
	}
	bad := in.pkg.InvalidPaths()
	idx := make([]int, 0, len(bad))
	for i := range bad {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	lo, hi := page(len(idx), offset, limit)
	out := invalidAnswer{Total: len(idx), Offset: offset, Entries: make([]invalidJSON, 0, hi-lo)}
	objs := in.pkg.Objects()
	for _, i := range idx[lo:hi] {
		out.Entries = append(out.Entries, invalidJSON{i, strconv.Quote(objs[i].Name), objs[i].Size})
	}
	writeJSON(w, out)
}
