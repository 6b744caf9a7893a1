package explorer

import (
	"net/http"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/describe"
)

// sectionsAnswer is the answer of /api/sections.
type sectionsAnswer struct {
	Total   int           `json:"total"`
	Offset  int           `json:"offset"`
	Next    int           `json:"next"` // where the next page starts (Total after the last)
	Entries []sectionJSON `json:"entries"`
}

// serveSections answers /api/sections: one page of the section table of
// a container (/api/container answers the first).
func (s *Server) serveSections(w http.ResponseWriter, r *http.Request) {
	offset, limit, err := pageParams(r)
	if err != nil {
		fail(w, err)
		return
	}
	t, err := s.containerSubject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer t.Close()
	out := sectionsAnswer{Total: len(t.rd.Sections), Offset: offset}
	out.Entries, out.Next = sectionPage(t.rd, offset, limit)
	writeJSON(w, out)
}

// sectionPage returns the sections of rd from offset, at most limit and
// at most MaxPageBytes of JSON, and where the next page starts.
func sectionPage(rd *bpx.Reader, offset, limit int) ([]sectionJSON, int) {
	lo, hi := page(len(rd.Sections), offset, limit)
	out := make([]sectionJSON, 0, hi-lo)
	names := describe.NewSectionNamer(rd)
	var size pageSize
	for _, sec := range rd.Sections[lo:hi] {
		e := sectionJSON{
			Index: sec.Index, Type: sec.Type, TypeName: names.Name(sec.Type), Flags: sec.Flags,
			FlagNames: describe.FlagNames(sec.Flags), Pointer: sec.Pointer, CSize: sec.CSize,
			USize: sec.USize, Checksum: sec.Checksum, View: describe.View(sec.Type),
		}
		if !size.fits(160 + jsonLen(e.TypeName) + jsonLen(e.FlagNames) + len(e.View)) {
			break
		}
		out = append(out, e)
	}
	return out, lo + len(out)
}
