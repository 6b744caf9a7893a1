package explorer

import (
	"net/http"
	"strconv"
	"unicode/utf8"
)

// maxShownName is how many bytes of a name /api/invalid shows: a longer
// one is cut there (at the start of a character) and marked with "…".
const maxShownName = 256

// invalidAnswer is the answer of /api/invalid.
type invalidAnswer struct {
	Total   int           `json:"total"`
	Offset  int           `json:"offset"`
	Next    int           `json:"next"` // where the next page starts (Total after the last)
	Entries []invalidJSON `json:"entries"`
}

// invalidJSON is an object whose name is no valid path.
type invalidJSON struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`   // shownName of the stored name
	Length int    `json:"length"` // of the stored name, in bytes
	Why    string `json:"why"`
	Size   uint64 `json:"size"`
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
	bad := in.invalid()
	lo, hi := page(len(bad.indexes), offset, limit)
	out := invalidAnswer{Total: len(bad.indexes), Offset: offset, Entries: make([]invalidJSON, 0, hi-lo)}
	objs := in.pkg.Objects()
	var size pageSize
	for _, i := range bad.indexes[lo:hi] {
		e := invalidJSON{i, shownName(objs[i].Name), len(objs[i].Name), bad.why[i], objs[i].Size}
		if !size.fits(96 + jsonLen(e.Name) + jsonLen(e.Why)) {
			break
		}
		out.Entries = append(out.Entries, e)
	}
	out.Next = lo + len(out.Entries)
	writeJSON(w, out)
}

// shownName is name quoted (strconv.Quote), cut to maxShownName bytes.
func shownName(name string) string {
	if len(name) <= maxShownName {
		return strconv.Quote(name)
	}
	cut := maxShownName
	for cut > maxShownName-utf8.UTFMax && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strconv.Quote(name[:cut]) + "…"
}
