package explorer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/bo3d"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

// fuzzExts are the names a fuzzed file gets, chosen by a fuzzed byte.
var fuzzExts = []string{".bpx", ".blk", ".bo3d", ".bpxsd", ".png", ".txt", ".dat"}

// FuzzPreview serves fuzzed bytes as an object of a package and as a file
// given to New, asks /api/preview about both and then every URL the answer
// names (and the table and sections of containers): no panic, and every
// error is classified (no status 500).
func FuzzPreview(f *testing.F) {
	seeds := [][]byte{
		textureFile(f, testImage(4, 2, 1, true), texture.FormatRGBA),
		textureFile(f, floatImage(), texture.FormatFloat),
		cubeFile(f),
		modelFile(f, quadModel()),
		rawModelFile(f, 0x1234, 2, make([]byte, 40), nil),
		bo3dFile(f, bo3d.Triangle{0, 1, 2}),
		sdBytes(f),
		blkFile(f),
		[]byte(blkText),
		tableFile(f),
		pngBytes(f, testImage(2, 2, 0, false)),
		[]byte("text\n"),
	}
	for _, b := range seeds {
		for i := range fuzzExts {
			f.Add(b, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, ext uint8) {
		name := "o" + fuzzExts[int(ext)%len(fuzzExts)]
		// Stored raw: compressing each input would cost more than the
		// rest of the execution (FuzzPreview ran 435 a minute with xz).
		pkg := packageFile(t, map[string][]byte{"d/" + name: data}, pack.WithCompression(bpx.CompressNone))
		s := newPreviewServer(t, "game.bpx", pkg, name, data)
		for _, p := range []string{"game.bpx/d/" + name, name} {
			fuzzFollow(t, s, "/api/preview?path="+p)
		}
		fuzzFollow(t, s, "/api/preview?file=1")
	})
}

// fuzzFollow requests a preview and every URL of its answer.
func fuzzFollow(t *testing.T, s *Server, url string) {
	rec := get(t, s, url)
	if rec.Code != 200 {
		t.Fatalf("%s: status %d: %s", url, rec.Code, rec.Body)
	}
	var ans map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &ans); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	var urls []string
	for _, k := range []string{"png", "mesh", "url", "typedUrl", "text", "json"} {
		if u, ok := ans[k].(string); ok && strings.HasPrefix(u, "/api/") {
			if k == "png" {
				u += "0"
			}
			urls = append(urls, u)
		}
	}
	if c, ok := ans["container"].(string); ok {
		q := strings.TrimPrefix(c, "/api/container?")
		urls = append(urls, "/api/table?"+q, "/api/sd?"+q, "/api/sd?"+q+"&section=0&typed=1", "/api/blk?"+q+"&as=json")
	}
	for _, u := range urls {
		rec := get(t, s, u)
		if rec.Code == 500 || rec.Code == 200 && bytes.HasPrefix(rec.Body.Bytes(), []byte(`{"error"`)) {
			t.Fatalf("%s (from %s): status %d: %s", u, url, rec.Code, rec.Body)
		}
	}
}
