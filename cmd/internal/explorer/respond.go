package explorer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/gobpx/bpx"
)

// writeJSON writes v as the JSON answer.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v) // an error here is a gone client
}

// writeError writes err as {"error": "..."} with status.
func writeError(w http.ResponseWriter, status int, err error) {
	h := w.Header()
	h.Del("Content-Disposition")
	h.Del("Content-Range")
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(struct {
		Error string `json:"error"`
	}{err.Error()})
}

// fail writes err with the status its kind deserves: 404 for a missing
// path, 413 for a limit, 422 for a malformed file, else 500.
func fail(w http.ResponseWriter, err error) {
	var bad *badRequest
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, err)
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, err)
	case errors.Is(err, bpx.ErrTooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, err)
	case errors.Is(err, bpx.ErrFormat), errors.Is(err, bpx.ErrChecksum), errors.Is(err, bpx.ErrUnsupported),
		errors.Is(err, fs.ErrInvalid):
		writeError(w, http.StatusUnprocessableEntity, err)
	default:
		writeError(w, http.StatusInternalServerError, err)
	}
}

// badRequest is a request the server cannot make sense of (status 400).
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

// badRequestf returns a *badRequest.
func badRequestf(format string, args ...any) error {
	return &badRequest{fmt.Sprintf(format, args...)}
}
