package explorer

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// maxSD is the largest BPXSD object previewed: decoded, it takes at most
// 128 bytes per byte (see package sd), so at most MaxPreviewBytes.
const maxSD = MaxPreviewBytes / 128

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
	out, err := s.decodeSD(r, sub, req)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(append(out, '\n'))
}

// decodeSD decodes the BPXSD object of sub and returns its JSON: a file
// holding one object, section req.section of a container, or else its
// first structured-data section (a package's metadata).
func (s *Server) decodeSD(r *http.Request, sub *subject, req sdRequest) ([]byte, error) {
	name := sub.name
	var data []byte
	var err error
	switch {
	case sub.rd == nil && req.section >= 0:
		return nil, fmt.Errorf("%s: no sections, not a BPX file: %w", sub.name, sub.rdErr)
	case sub.rd == nil:
		data, err = sub.readAll(maxSD)
	default:
		sec, err := sdSection(sub, req.section)
		if err != nil {
			return nil, err
		}
		name = fmt.Sprintf("%s: section %d", sub.name, sec.Index)
		if sec.USize > maxSD {
			return nil, fmt.Errorf("%s: %d bytes, above the preview limit of %d for structured data: %w", name, sec.USize, maxSD, bpx.ErrTooLarge)
		}
		release, err := s.acquire(r)
		if err != nil {
			return nil, err
		}
		defer release()
		data, err = sectionData(sub.name, sec)
		if err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	obj, err := sd.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []byte
	if req.typed {
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
