package explorer

import (
	"bytes"
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
)

// sniffSize is how much of a file decides whether it is text or an image.
const sniffSize = 8 << 10

// sdExts are the extensions of files holding one BPXSD object.
var sdExts = map[string]bool{".bpxsd": true, ".sd": true}

// imageExts are the extensions previewed as images, and the content types
// their bytes must sniff as ("" for any).
var imageExts = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp",
	".ico": "image/x-icon", ".svg": "image/svg+xml",
}

// previewOf describes how the page previews sub: the answer of
// /api/preview. A kind that fails to decode becomes "hex" with the error.
func (s *Server) previewOf(r *http.Request, sub *subject) (map[string]any, error) {
	ans := map[string]any{"kind": "hex", "name": sub.name, "size": sub.size, "error": ""}
	if sub.rd != nil {
		ans["container"] = "/api/container?" + sub.query
	}
	kind, fields, err := s.detect(r, sub)
	if r.Context().Err() != nil {
		return nil, r.Context().Err()
	}
	if err != nil {
		ans["error"] = err.Error()
		kind, fields = "hex", nil
	}
	ans["kind"] = kind
	for k, v := range fields {
		ans[k] = v
	}
	if kind == "hex" {
		ans["url"] = sub.rawURL()
	}
	return ans, nil
}

// detect returns the kind of sub and its fields, or the error that kept
// the detected kind from decoding.
func (s *Server) detect(r *http.Request, sub *subject) (string, map[string]any, error) {
	if sub.rd != nil {
		switch sub.rd.Header.Type {
		case bpx.TypeTexture:
			f, err := textureFields(sub)
			return "texture", f, err
		case bpx.TypeModel:
			f, err := s.meshFields(r, sub)
			return "model", f, err
		case blk.BPXType:
			return "blk", blkFields(sub), s.checkBLK(r, sub)
		}
		return "container", nil, nil
	}
	head, err := sub.head(sniffSize)
	if err != nil {
		return "hex", nil, err
	}
	if bytes.HasPrefix(head, bpx.Magic[:]) {
		return "hex", nil, fmt.Errorf("%s: not a readable BPX file: %w", sub.name, sub.rdErr)
	}
	ext := strings.ToLower(path.Ext(sub.name))
	switch {
	case ext == ".blk" || isBinaryBLK(head):
		return "blk", blkFields(sub), s.checkBLK(r, sub)
	case ext == ".bo3d" || bytes.HasPrefix(head, bo3dMagic):
		f, err := s.meshFields(r, sub)
		return "bo3d", f, err
	case sdExts[ext]:
		err := s.checkSD(r, sub)
		return "sd", map[string]any{"url": "/api/sd?" + sub.query, "typedUrl": "/api/sd?" + sub.query + "&typed=1"}, err
	}
	if ct, ok := imageType(ext, head); ok {
		return "image", map[string]any{"contentType": ct, "url": sub.rawURL()}, nil
	} else if ct != "" {
		return "hex", nil, fmt.Errorf("%s: named %s but its bytes are %s", sub.name, ext, ct)
	}
	if isText(head, int64(len(head)) < sub.size) {
		return "text", map[string]any{"url": sub.rawURL()}, nil
	}
	return "hex", nil, nil
}

// imageType returns the content type of an image named with extension ext
// whose first bytes are head, and whether its bytes are of that type. For
// an image extension with other bytes, it returns what they sniff as and
// false.
func imageType(ext string, head []byte) (string, bool) {
	want, named := imageExts[ext]
	sniffed := http.DetectContentType(head)
	if !named {
		switch sniffed {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
			return sniffed, true
		}
		return "", false
	}
	if ext == ".svg" {
		if isText(head, true) && bytes.Contains(head, []byte("<svg")) {
			return want, true
		}
		return "not SVG", false
	}
	if sniffed == want {
		return want, true
	}
	return sniffed, false
}

// isText reports whether head is UTF-8 text without NUL bytes; cut says
// that head is the start of a longer file, whose last rune may be cut.
func isText(head []byte, cut bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	if cut {
		// Drop an incomplete rune at the end: at most 3 bytes.
		for i := 0; i < 3 && len(head) > 0; i++ {
			r, size := utf8.DecodeLastRune(head)
			if r != utf8.RuneError || size != 1 {
				break
			}
			head = head[:len(head)-1]
		}
	}
	return utf8.Valid(head)
}

// checkSD decodes sub as a BPXSD object.
func (s *Server) checkSD(r *http.Request, sub *subject) error {
	_, g, err := s.decodeSD(r, sub, sdRequest{section: -1})
	if err == nil {
		g.release()
	}
	return err
}

// bo3dMagic are the first bytes of a BO3D file.
var bo3dMagic = []byte("BO3D")

// blkFields are the preview fields of a BLK file: its text and JSON views.
func blkFields(sub *subject) map[string]any {
	return map[string]any{"text": "/api/blk?" + sub.query + "&as=text", "json": "/api/blk?" + sub.query + "&as=json"}
}
