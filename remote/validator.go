package remote

import (
	"fmt"
	"net/http"
	"strings"
)

// pin records the validators of the first answer.
func (f *File) pin(h http.Header) {
	etag := h.Get("ETag")
	switch {
	case strings.HasPrefix(etag, `"`):
		f.etag = etag
	case strings.HasPrefix(etag, `W/`):
		f.weakETag = etag
	}
	if f.etag == "" {
		f.lastMod = h.Get("Last-Modified")
	}
}

// same checks that a later 206, with the headers h and the total size
// total (-1 for "*"), is a part of the version pinned at Open (RFC 9110
// §15.3.7.3: parts combine only under the same strong validator). It must
// give the size, and carry the pinned validator: a part that leaves it out
// is as changed as one with another.
func (f *File) same(h http.Header, total int64) error {
	switch {
	case total < 0:
		return fmt.Errorf("%w: Content-Range %q gives no size, was %d", ErrChanged, h.Get("Content-Range"), f.size)
	case total != f.size:
		return fmt.Errorf("%w: size %d, was %d", ErrChanged, total, f.size)
	}
	etag := h.Get("ETag")
	switch {
	case f.etag != "" && etag != f.etag:
		return fmt.Errorf("%w: ETag %s, was %s", ErrChanged, orNone(etag), f.etag)
	case f.etag == "" && f.weakETag != "" && etag != "" && etag != f.weakETag:
		return fmt.Errorf("%w: ETag %s, was %s", ErrChanged, etag, f.weakETag)
	}
	if lm := h.Get("Last-Modified"); f.lastMod != "" && lm != f.lastMod {
		return fmt.Errorf("%w: Last-Modified %s, was %s", ErrChanged, orNone(lm), f.lastMod)
	}
	return nil
}

// orNone returns s, or "none" for "".
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// unchanged reports whether an answer carries the pinned validator.
func (f *File) unchanged(h http.Header) bool {
	if f.etag != "" {
		return h.Get("ETag") == f.etag
	}
	return f.lastMod != "" && h.Get("Last-Modified") == f.lastMod
}
