package explorer

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// sdFactor is what a BPXSD preview takes per byte of its object at most:
// decoded, at most 128 bytes per byte (see package sd); with its JSON,
// TestPreviewCostFactors measures about 70 for the worst shapes.
const sdFactor = 128

// maxSD is the largest BPXSD object previewed: within MaxPreviewBytes.
const maxSD = MaxPreviewBytes / sdFactor

// sdRequest is what /api/sd asks for.
type sdRequest struct {
	section int // -1 for the default
	typed   bool
}

// handleSD answers /api/sd: a BPXSD object as JSON, plain or typed, as
// "bpx sd" and "bpx sd --typed" print it.
func (s *Server) handleSD(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := sdRequest{section: -1, typed: q.Get("typed") == "1" || q.Get("typed") == "true"}
	if q.Has("section") {
		n, err := strconv.Atoi(q.Get("section"))
		if err != nil || n < 0 {
			fail(w, badRequestf("section wants a number from 0, got %q", q.Get("section")))
			return
		}
		req.section = n
	}
	sub, err := s.subject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer sub.Close()
	out, g, err := s.decodeSD(r, sub, req)
	if err != nil {
		failRequest(w, r, err)
		return
	}
	send(w, g, "application/json; charset=utf-8", append(out, '\n'))
}

// decodeSD decodes the BPXSD object of sub and returns its JSON: a file
// holding one object, section req.section of a container, or else its
// first structured-data section (a package's metadata). It decodes under
// a grant of the preview budget, which the caller releases.
func (s *Server) decodeSD(r *http.Request, sub *subject, req sdRequest) ([]byte, *grant, error) {
	name := sub.name
	var sec *bpx.Section
	n := sub.size
	switch {
	case sub.rd == nil && req.section >= 0:
		return nil, nil, fmt.Errorf("%s: no sections, not a BPX file: %w", sub.name, sub.rdErr)
	case sub.rd != nil:
		var err error
		if sec, err = sdSection(sub, req.section); err != nil {
			return nil, nil, err
		}
		name = fmt.Sprintf("%s: section %d", sub.name, sec.Index)
		n = int64(sec.USize)
	}
	if n > maxSD {
		return nil, nil, fmt.Errorf("%s: %d bytes, above the preview limit of %d for structured data: %w", name, n, maxSD, bpx.ErrTooLarge)
	}
	g, err := s.acquire(r, name, sdFactor*n)
	if err != nil {
		return nil, nil, err
	}
	out, err := sdJSON(sub, sec, name, req.typed)
	if err != nil {
		g.release()
		return nil, nil, err
	}
	return out, g, nil
}

// sdJSON decodes the object of sub (of its section sec, if not nil) and
// returns its JSON.
func sdJSON(sub *subject, sec *bpx.Section, name string, typed bool) ([]byte, error) {
	var data []byte
	var err error
	if sec == nil {
		data, err = sub.readAll(maxSD)
	} else {
		data, err = sectionData(sub.name, sec)
	}
	if err != nil {
		return nil, err
	}
	obj, err := sd.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []byte
	if typed {
		out, err = sd.MarshalTypedJSON(obj)
	} else {
		out, err = obj.MarshalJSON()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// sdSection is section i of sub's container, or its first
// structured-data section when i < 0.
func sdSection(sub *subject, i int) (*bpx.Section, error) {
	if i >= len(sub.rd.Sections) {
		return nil, notFoundf("%s: no section %d (the file has %d)", sub.name, i, len(sub.rd.Sections))
	}
	if i >= 0 {
		return sub.rd.Sections[i], nil
	}
	if sec := sub.rd.FindSection(bpx.SectionTypeStructuredData); sec != nil {
		return sec, nil
	}
	return nil, notFoundf("%s: no structured-data section (type 0xFE)", sub.name)
}
