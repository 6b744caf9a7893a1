package explorer

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

// packBytes writes a package of the objects named in names (in that
// order) with contents from files, and the writer options opts.
func packBytes(t testing.TB, files map[string]string, names []string, opts ...pack.WriterOption) []byte {
	t.Helper()
	if names == nil {
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, opts...)
	for _, n := range names {
		ow, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(ow, files[n])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// textureBytes encodes a 4x2 RGBA texture.
func textureBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	tex, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := texture.Encode(&buf, tex, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// file is a File of b.
func file(name string, b []byte) File {
	return File{Name: name, R: bytes.NewReader(b), Size: int64(len(b))}
}

// newServer is a Server of files; it is closed when the test ends.
func newServer(t testing.TB, files []File, opts ...Option) *Server {
	t.Helper()
	s, err := New(files, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// get requests target from s as localhost would.
func get(t testing.TB, s http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	return do(s, httptest.NewRequest("GET", target, nil))
}

// do serves req, with Host localhost.
func do(s http.Handler, req *http.Request) *httptest.ResponseRecorder {
	req.Host = "localhost:8080"
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// getJSON requests target, checks the status and decodes the JSON answer
// into v.
func getJSON(t testing.TB, s http.Handler, target string, status int, v any) {
	t.Helper()
	rec := get(t, s, target)
	if rec.Code != status {
		t.Fatalf("GET %s: status %d, want %d: %s", target, rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("GET %s: Content-Type %q", target, ct)
	}
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
}

// wantError requests target and checks that the answer is a JSON error
// with status and a message containing substr.
func wantError(t testing.TB, s http.Handler, target string, status int, substr string) {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	getJSON(t, s, target, status, &e)
	if e.Error == "" || !strings.Contains(e.Error, substr) {
		t.Errorf("GET %s: error %q, want one containing %q", target, e.Error, substr)
	}
}

// jsonOf is the compact JSON of the answer to target (checked for status
// 200), for comparing whole answers.
func jsonOf(t testing.TB, s http.Handler, target string) string {
	t.Helper()
	rec := get(t, s, target)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", target, rec.Code, rec.Body)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, rec.Body.Bytes()); err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return buf.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// mustURL parses a request target as a server would, keeping escapes.
func mustURL(t testing.TB, target string) *url.URL {
	t.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
