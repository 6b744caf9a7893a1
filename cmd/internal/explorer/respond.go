package explorer

import (
	"bytes"
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

// jsonAnswer is v as a JSON answer, as writeJSON writes it.
func jsonAnswer(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// send writes body, the answer a preview made under g, of type ctype.
// While it is written the grant keeps only the answer's bytes (a slow
// client holds no more of the budget, and no longer than writeIdle
// allows); then it is released.
func send(w http.ResponseWriter, g *grant, ctype string, body []byte) {
	g.keep(int64(len(body)))
	defer g.release()
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body) // an error here is a gone client
}

// sendJSON sends v as the JSON answer of a preview made under g.
func sendJSON(w http.ResponseWriter, r *http.Request, g *grant, v any) {
	b, err := jsonAnswer(v)
	if err != nil {
		g.release()
		failRequest(w, r, err)
		return
	}
	send(w, g, "application/json; charset=utf-8", b)
}

// failRequest is fail, unless the request is gone: then nobody reads the
// answer and nothing is written.
func failRequest(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return
	}
	fail(w, err)
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
