package explorer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
	"github.com/gobpx/bpx/formats/bo3d"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/texture"
)

// previewJSON requests url, checks the status and decodes the JSON answer.
func previewJSON(t testing.TB, s http.Handler, url string, status int) map[string]any {
	t.Helper()
	rec := get(t, s, url)
	if rec.Code != status {
		t.Fatalf("%s: status %d, want %d: %s", url, rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: Content-Type %q", url, ct)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%s: %v: %s", url, err, rec.Body)
	}
	return m
}

// truncated is b without its last n bytes.
func truncated(b []byte, n int) []byte { return b[:len(b)-n] }

// hugeTexture is a texture whose TypeExt claims ext with a PixelArray of
// 16 bytes.
func hugeTexture(t testing.TB, ext texture.TypeExt) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType(bpx.TypeTexture)
	w.SetTypeExt(ext.Marshal())
	if err := w.WriteSection(texture.SectionPixelArray, bpx.SectionOptions{}, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// badTable is a container whose table section is junk.
func badTable(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	if err := w.WriteSection(bpx.SectionTypeTable, bpx.SectionOptions{}, []byte{1, 2, 3, 0, 9, 0, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gameObjects are the objects of the test package.
func gameObjects(t testing.TB) map[string][]byte {
	rgba := textureFile(t, testImage(8, 4, 1, true), texture.FormatRGBA)
	return map[string][]byte{
		"textures/rgba.bpx":  rgba,
		"textures/rgb.bpx":   textureFile(t, testImage(4, 4, 2, false), texture.FormatRGB),
		"textures/grey.bpx":  textureFile(t, greyImage(), texture.FormatGreyScale),
		"textures/float.bpx": textureFile(t, floatImage(), texture.FormatFloat),
		"textures/cube.bpx":  cubeFile(t),
		"textures/trunc.bpx": truncated(rgba, 10),
		"textures/lie.bpx":   hugeTexture(t, texture.TypeExt{WidthK: 12, HeightK: 11, Format: texture.FormatGreyScale}), // within the budget
		"textures/huge.bpx":  hugeTexture(t, texture.TypeExt{WidthK: 13, HeightK: 13, Format: texture.FormatRGBA}),
		"models/quad.bpx":    modelFile(t, quadModel()),
		"models/trunc.bpx":   truncated(modelFile(t, quadModel()), 8),
		"models/odd.bpx":     rawModelFile(t, 0x1234, 2, model.Float32Bytes(1, 2, 3, 9, 9, 4, 5, 6, 9, 9), nil),
		"models/badidx.bpx":  rawModelFile(t, bo3d.VertexFormatPNUHash, 3, make([]byte, 3*model.PNUSize), []uint32{0, 1, 7}),
		"meshes/tri.bo3d":    bo3dFile(t, bo3d.Triangle{0, 1, 2}),
		"meshes/bad.bo3d":    bo3dFile(t, bo3d.Triangle{0, 1, 9}),
		"meshes/junk.bo3d":   []byte("BO3Dnonsense"),
		"data/hero.bpxsd":    sdBytes(t),
		"data/bad.bpxsd":     []byte{0x01, 0x02},
		"data/units.bpx":     tableFile(t),
		"data/badtable.bpx":  badTable(t),
		"config/main.blk":    blkFile(t),
		"config/text.blk":    []byte(blkText),
		"config/data.bpx":    blkBPX(t),
		"config/junk.blk":    {0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},
		"images/a.png":       pngBytes(t, testImage(2, 2, 0, true)),
		"images/fake.png":    []byte("just text"),
		"docs/readme.txt":    []byte("héllo\n"),
		"bin/blob.dat":       {0, 1, 2, 3, 0xFF},
	}
}

// gameServer serves the test package.
func gameServer(t testing.TB) *Server {
	return newPreviewServer(t, "game.bpx", packageFile(t, gameObjects(t)))
}

func TestPreviewKinds(t *testing.T) {
	s := gameServer(t)
	q := "/api/preview?path="
	tests := []struct {
		path string
		want map[string]any
	}{
		{"textures/rgba.bpx", map[string]any{"kind": "texture", "error": "", "width": 8.0, "height": 4.0, "layers": 1.0, "format": "RGBA",
			"cubeMap": false, "mipmaps": 0.0, "png": "/api/texture.png?path=textures%2Frgba.bpx&layer=", "container": "/api/container?path=textures%2Frgba.bpx"}},
		{"textures/float.bpx", map[string]any{"kind": "texture", "format": "Float", "width": 4.0}},
		{"textures/grey.bpx", map[string]any{"kind": "texture", "format": "GreyScale"}},
		{"textures/rgb.bpx", map[string]any{"kind": "texture", "format": "RGB"}},
		{"textures/cube.bpx", map[string]any{"kind": "texture", "layers": 6.0, "cubeMap": true}},
		{"models/quad.bpx", map[string]any{"kind": "model", "error": "", "vertices": 7.0, "triangles": 3.0, "bones": 1.0,
			"vertexFormat": "position float32x3, normal float32x3, uv float32x2", "mesh": "/api/mesh?path=models%2Fquad.bpx"}},
		{"models/odd.bpx", map[string]any{"kind": "model", "vertices": 2.0, "triangles": 0.0, "bones": 0.0,
			"vertexFormat": "unknown format 0x0000000000001234: 20-byte vertices, position float32x3 at offset 0 assumed"}},
		{"meshes/tri.bo3d", map[string]any{"kind": "bo3d", "error": "", "vertices": 3.0, "triangles": 1.0, "bones": 1.0,
			"vertexFormat": "uv float32x2, normal float32x3, position float32x3", "mesh": "/api/mesh?path=meshes%2Ftri.bo3d"}},
		{"data/hero.bpxsd", map[string]any{"kind": "sd", "url": "/api/sd?path=data%2Fhero.bpxsd", "typedUrl": "/api/sd?path=data%2Fhero.bpxsd&typed=1"}},
		{"data/units.bpx", map[string]any{"kind": "container", "error": "", "container": "/api/container?path=data%2Funits.bpx"}},
		{"config/main.blk", map[string]any{"kind": "blk", "text": "/api/blk?path=config%2Fmain.blk&as=text", "json": "/api/blk?path=config%2Fmain.blk&as=json"}},
		{"config/text.blk", map[string]any{"kind": "blk", "error": ""}},
		{"config/data.bpx", map[string]any{"kind": "blk", "error": "", "text": "/api/blk?path=config%2Fdata.bpx&as=text",
			"container": "/api/container?path=config%2Fdata.bpx"}},
		{"images/a.png", map[string]any{"kind": "image", "contentType": "image/png", "url": "/raw/images/a.png"}},
		{"docs/readme.txt", map[string]any{"kind": "text", "url": "/raw/docs/readme.txt", "size": 7.0, "name": "docs/readme.txt"}},
		{"bin/blob.dat", map[string]any{"kind": "hex", "error": "", "url": "/raw/bin/blob.dat"}},
	}
	for _, tt := range tests {
		got := previewJSON(t, s, q+tt.path, 200)
		for k, v := range tt.want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %s = %#v, want %#v (answer %v)", tt.path, k, got[k], v, got)
			}
		}
	}
	// The package itself, as file 0.
	got := previewJSON(t, s, "/api/preview?file=0", 200)
	if got["kind"] != "container" || got["container"] != "/api/container?file=0" {
		t.Errorf("file=0: %v", got)
	}
}

// TestPreviewMalformed: a kind that fails to decode is "hex" with an
// error naming what failed, status 200.
func TestPreviewMalformed(t *testing.T) {
	s := gameServer(t)
	tests := []struct{ path, errPart string }{
		{"textures/trunc.bpx", "past the end of the file"},
		{"models/trunc.bpx", "models/trunc.bpx"},
		{"textures/lie.bpx", "PixelArray of 16 bytes"},
		{"textures/huge.bpx", "above the preview limit"},
		{"models/badidx.bpx", "models/badidx.bpx"},
		{"meshes/bad.bo3d", "triangle 0 uses vertex 9"},
		{"meshes/junk.bo3d", "bo3d"},
		{"data/bad.bpxsd", "data/bad.bpxsd"},
		{"config/junk.blk", "config/junk.blk"},
		{"images/fake.png", "named .png but its bytes are text/plain"},
	}
	for _, tt := range tests {
		got := previewJSON(t, s, "/api/preview?path="+tt.path, 200)
		msg, _ := got["error"].(string)
		if got["kind"] != "hex" || !strings.Contains(msg, tt.errPart) || got["url"] != "/raw/"+tt.path {
			t.Errorf("%s: %v, want kind hex, error with %q", tt.path, got, tt.errPart)
		}
	}
}

// comparePNG decodes a PNG answer and compares its pixels with want in
// the color model m.
func comparePNG(t *testing.T, name string, body []byte, want image.Image, m color.Model) {
	t.Helper()
	got, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("%s: bounds %v, want %v", name, got.Bounds(), want.Bounds())
	}
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if g, w := m.Convert(got.At(x, y)), m.Convert(want.At(x, y)); g != w {
				t.Fatalf("%s: pixel (%d, %d) = %v, want %v", name, x, y, g, w)
			}
		}
	}
}

// opaque is img with alpha 255.
func opaque(img *image.NRGBA) *image.NRGBA {
	o := image.NewNRGBA(img.Rect)
	copy(o.Pix, img.Pix)
	for i := 3; i < len(o.Pix); i += 4 {
		o.Pix[i] = 255
	}
	return o
}

func TestTexturePNG(t *testing.T) {
	s := gameServer(t)
	tests := []struct {
		path string
		want image.Image
		m    color.Model
	}{
		{"textures/rgba.bpx&layer=0", testImage(8, 4, 1, true), color.NRGBAModel},
		{"textures/rgb.bpx", opaque(testImage(4, 4, 2, false)), color.NRGBAModel},
		{"textures/grey.bpx", greyImage(), color.GrayModel},
		{"textures/float.bpx", floatImage(), color.Gray16Model},
		{"textures/cube.bpx&layer=3", cubeImages()[3], color.NRGBAModel},
		{"textures/cube.bpx&layer=5", cubeImages()[5], color.NRGBAModel},
	}
	for _, tt := range tests {
		rec := get(t, s, "/api/texture.png?path="+tt.path)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" {
			t.Fatalf("%s: %d %s: %s", tt.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		comparePNG(t, tt.path, rec.Body.Bytes(), tt.want, tt.m)
	}
	for url, status := range map[string]int{
		"/api/texture.png?path=textures/cube.bpx&layer=6":  404,
		"/api/texture.png?path=textures/cube.bpx&layer=-1": 400,
		"/api/texture.png?path=textures/cube.bpx&layer=x":  400,
		"/api/texture.png?path=textures/trunc.bpx":         422,
		"/api/texture.png?path=textures/lie.bpx":           422,
		"/api/texture.png?path=textures/huge.bpx":          413,
		"/api/texture.png?path=models/quad.bpx":            400,
		"/api/texture.png?path=docs/readme.txt":            422,
		"/api/texture.png?path=nope.bpx":                   404,
		"/api/texture.png":                                 400,
	} {
		previewJSON(t, s, url, status)
	}
}

// TestTextureHugeNoAlloc: a TypeExt claiming 16384x16384 pixels (or
// 8192x4096, within the budget) over a 16-byte section fails without allocating the claim.
func TestTextureHugeNoAlloc(t *testing.T) {
	s := gameServer(t)
	for _, p := range []string{"textures/huge.bpx", "textures/lie.bpx"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		get(t, s, "/api/texture.png?path="+p)
		get(t, s, "/api/preview?path="+p)
		runtime.ReadMemStats(&after)
		if d := after.TotalAlloc - before.TotalAlloc; d > 4<<20 {
			t.Errorf("%s: allocated %d bytes", p, d)
		}
	}
}

// parseMesh parses an /api/mesh answer.
func parseMesh(t *testing.T, b []byte) (pos, nor []float32, idx []uint32) {
	t.Helper()
	if len(b) < 8 {
		t.Fatalf("mesh of %d bytes", len(b))
	}
	nv, ni := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	if want := 8 + 24*int(nv) + 4*int(ni); len(b) != want {
		t.Fatalf("mesh of %d bytes, want %d for %d vertices and %d indices", len(b), want, nv, ni)
	}
	f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[8+4*i:])) }
	for i := range 3 * int(nv) {
		pos = append(pos, f(i))
		nor = append(nor, f(3*int(nv)+i))
	}
	for i := range int(ni) {
		idx = append(idx, binary.LittleEndian.Uint32(b[8+24*int(nv)+4*i:]))
	}
	return pos, nor, idx
}

func TestMesh(t *testing.T) {
	s := gameServer(t)
	quadNormals := make([]float32, 0, len(quadPositions))
	for range len(quadPositions) / 3 {
		quadNormals = append(quadNormals, 0, 0, 1)
	}
	tests := []struct {
		path     string
		pos, nor []float32
		idx      []uint32
	}{
		{"models/quad.bpx", quadPositions, quadNormals, quadIndices},
		{"models/odd.bpx", []float32{1, 2, 3, 4, 5, 6}, make([]float32, 6), nil},
		{"meshes/tri.bo3d", []float32{0, 0, 0, 2, 0, 0, 0, 3, 0}, []float32{0, 0, 1, 0, 0, 1, 0, 1, 0}, []uint32{0, 1, 2}},
	}
	for _, tt := range tests {
		rec := get(t, s, "/api/mesh?path="+tt.path)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/octet-stream" {
			t.Fatalf("%s: %d: %s", tt.path, rec.Code, rec.Body)
		}
		pos, nor, idx := parseMesh(t, rec.Body.Bytes())
		if !reflect.DeepEqual(pos, tt.pos) || !reflect.DeepEqual(nor, tt.nor) || !reflect.DeepEqual(idx, tt.idx) {
			t.Errorf("%s: positions %v normals %v indices %v, want %v %v %v", tt.path, pos, nor, idx, tt.pos, tt.nor, tt.idx)
		}
	}
	for url, status := range map[string]int{
		"/api/mesh?path=models/badidx.bpx": 422,
		"/api/mesh?path=meshes/bad.bo3d":   422,
		"/api/mesh?path=meshes/junk.bo3d":  422,
		"/api/mesh?path=textures/rgba.bpx": 400,
		"/api/mesh?path=models/trunc.bpx":  422,
		"/api/mesh?path=models":            400,
	} {
		previewJSON(t, s, url, status)
	}
}

// TestMeshOutOfRangeIndex: an index past the vertices is a 422 whatever
// decodes it first.
func TestMeshOutOfRangeIndex(t *testing.T) {
	s := newPreviewServer(t, "bad.bpx", rawModelFile(t, 0x77, 3, make([]byte, 3*16), []uint32{0, 1, 3}))
	got := previewJSON(t, s, "/api/mesh?file=0", 422)
	if msg := got["error"].(string); !strings.Contains(msg, "bad.bpx") {
		t.Errorf("error %q does not name the file", msg)
	}
}

func TestSD(t *testing.T) {
	s := gameServer(t)
	plain, err := sdObject().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	obj, err := sd.Decode(sdBytes(t))
	if err != nil {
		t.Fatal(err)
	}
	typed, err := sd.MarshalTypedJSON(obj)
	if err != nil {
		t.Fatal(err)
	}
	noNames, err := sd.Encode(sdObject())
	if err != nil {
		t.Fatal(err)
	}
	obj2, err := sd.Decode(noNames)
	if err != nil {
		t.Fatal(err)
	}
	hashed, err := obj2.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(plain) != `{"name":"hero","hp":100,"pos":[1.5,-2]}` {
		t.Fatalf("fixture JSON %s", plain)
	}
	for url, want := range map[string][]byte{
		"/api/sd?path=data/hero.bpxsd":                  plain,
		"/api/sd?path=data/hero.bpxsd&typed=1":          typed,
		"/api/sd?file=0":                                hashed, // the package's metadata, without debug names
		"/api/sd?path=data/units.bpx":                   plain,
		"/api/sd?path=data/units.bpx&section=2":         plain,
		"/api/sd?path=data/units.bpx&typed=1":           typed,
		"/api/sd?path=data/units.bpx&section=2&typed=1": typed,
	} {
		rec := get(t, s, url)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d: %s", url, rec.Code, rec.Body)
		}
		if got := bytes.TrimSpace(rec.Body.Bytes()); !bytes.Equal(got, want) {
			t.Errorf("%s: %s, want %s", url, got, want)
		}
	}
	for url, status := range map[string]int{
		"/api/sd?path=data/bad.bpxsd":              422,
		"/api/sd?path=data/badtable.bpx&section=0": 422,
		"/api/sd?path=data/units.bpx&section=9":    404,
		"/api/sd?path=data/units.bpx&section=x":    400,
		"/api/sd?path=textures/rgba.bpx":           404,
	} {
		previewJSON(t, s, url, status)
	}
}

func TestBLK(t *testing.T) {
	s := gameServer(t)
	tree, err := blk.ParseText([]byte(blkText))
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := blk.WriteText(&text, tree); err != nil {
		t.Fatal(err)
	}
	if err := blk.WriteJSON(&js, tree); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"config/main.blk", "config/text.blk", "config/data.bpx"} {
		rec := get(t, s, "/api/blk?path="+p+"&as=text")
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" || rec.Body.String() != text.String() {
			t.Errorf("%s as text: %d %q, want %q", p, rec.Code, rec.Body, text.String())
		}
		rec = get(t, s, "/api/blk?path="+p+"&as=json")
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") || rec.Body.String() != js.String() {
			t.Errorf("%s as json: %d %q, want %q", p, rec.Code, rec.Body, js.String())
		}
	}
	if !strings.Contains(text.String(), `name:t="tank"`) {
		t.Errorf("text %q", text.String())
	}
	for url, status := range map[string]int{
		"/api/blk?path=config/junk.blk&as=text":   422,
		"/api/blk?path=config/main.blk":           400,
		"/api/blk?path=config/main.blk&as=yaml":   400,
		"/api/blk?path=textures/rgba.bpx&as=text": 400,
		"/api/blk?path=config/none.blk&as=text":   404,
	} {
		previewJSON(t, s, url, status)
	}
}

func TestTable(t *testing.T) {
	s := gameServer(t)
	got := previewJSON(t, s, "/api/table?path=data/units.bpx", 200)
	want := map[string]any{
		"name": "units",
		"columns": []any{
			map[string]any{"name": "id", "type": "uint32", "len": 1.0},
			map[string]any{"name": "name", "type": "varchar", "len": 8.0},
			map[string]any{"name": "pos", "type": "float32", "len": 2.0},
		},
		"total": 2.0, "offset": 0.0,
		"rows": []any{[]any{1.0, "tank", []any{1.0, 2.0}}, []any{3.0, "plane", []any{-1.0, 0.5}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("table: %v, want %v", got, want)
	}
	got = previewJSON(t, s, "/api/table?path=data/units.bpx&section=0&offset=1&limit=5", 200)
	if rows := got["rows"].([]any); got["offset"] != 1.0 || got["total"] != 2.0 || len(rows) != 1 || rows[0].([]any)[1] != "plane" {
		t.Errorf("offset 1: %v", got)
	}
	got = previewJSON(t, s, "/api/table?path=data/units.bpx&limit=1", 200)
	if rows := got["rows"].([]any); len(rows) != 1 || rows[0].([]any)[1] != "tank" {
		t.Errorf("limit 1: %v", got)
	}
	got = previewJSON(t, s, "/api/table?path=data/units.bpx&offset=9", 200)
	if rows := got["rows"].([]any); len(rows) != 0 {
		t.Errorf("offset 9: %v", got)
	}
	for url, status := range map[string]int{
		"/api/table?path=data/badtable.bpx":         422,
		"/api/table?path=data/units.bpx&section=1":  400,
		"/api/table?path=data/units.bpx&section=7":  404,
		"/api/table?path=data/units.bpx&limit=9999": 400,
		"/api/table?path=textures/rgba.bpx":         404,
		"/api/table?path=docs/readme.txt":           422,
	} {
		previewJSON(t, s, url, status)
	}
}

// TestFileTargets: files given to New are named file=N in the answers'
// URLs, and non-BPX files are previewed by content.
func TestFileTargets(t *testing.T) {
	s := newPreviewServer(t, "hero.png", pngBytes(t, testImage(2, 2, 0, false)), "tri.bo3d", bo3dFile(t, bo3d.Triangle{0, 1, 2}),
		"quad.bpx", modelFile(t, quadModel()), "tex.bpx", textureFile(t, testImage(2, 2, 0, true), texture.FormatRGBA))
	got := previewJSON(t, s, "/api/preview?file=0", 200)
	if got["kind"] != "image" || got["url"] != "/raw/hero.png" || got["contentType"] != "image/png" {
		t.Errorf("file=0: %v", got)
	}
	got = previewJSON(t, s, "/api/preview?file=1", 200)
	if got["kind"] != "bo3d" || got["mesh"] != "/api/mesh?file=1" || got["container"] != nil {
		t.Errorf("file=1: %v", got)
	}
	got = previewJSON(t, s, "/api/preview?file=2", 200)
	if got["kind"] != "model" || got["mesh"] != "/api/mesh?file=2" || got["container"] != "/api/container?file=2" {
		t.Errorf("file=2: %v", got)
	}
	got = previewJSON(t, s, "/api/preview?path=tex.bpx", 200)
	if got["kind"] != "texture" || got["png"] != "/api/texture.png?path=tex.bpx&layer=" {
		t.Errorf("path=tex.bpx: %v", got)
	}
	rec := get(t, s, "/api/texture.png?file=3&layer=0")
	comparePNG(t, "file=3", rec.Body.Bytes(), testImage(2, 2, 0, true), color.NRGBAModel)
	rec = get(t, s, "/api/mesh?file=2")
	if pos, _, idx := parseMesh(t, rec.Body.Bytes()); !reflect.DeepEqual(pos, quadPositions) || !reflect.DeepEqual(idx, quadIndices) {
		t.Errorf("file=2 mesh: %v %v", pos, idx)
	}
	previewJSON(t, s, "/api/preview?file=4", 404)
	previewJSON(t, s, "/api/preview?file=x", 404)
}

// TestPreviewBudgetWait: a decode waits for its share of the preview
// budget, and a request that goes away while waiting returns without
// decoding.
func TestPreviewBudgetWait(t *testing.T) {
	s := gameServer(t)
	holdBudget(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "/api/texture.png?path=textures/rgba.bpx", nil).WithContext(ctx)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req) // returns although the whole budget is held
	if rec.Body.Len() != 0 {
		t.Errorf("gone request answered %q", rec.Body)
	}
	s.budget.release(MaxPreviewBytes)
	if rec := get(t, s, "/api/texture.png?path=textures/rgba.bpx"); rec.Code != 200 {
		t.Errorf("status %d after the budget came back", rec.Code)
	}
	if n := s.budget.held(); n != 0 {
		t.Errorf("%d bytes of the budget still held", n)
	}
}

// blkBPX is the BLK tree of blkText as a BPX container of type 'D'.
func blkBPX(t testing.TB) []byte {
	t.Helper()
	tree, err := blk.ParseText([]byte(blkText))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := blk.WriteBPX(&b, tree); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMeshSceneTransform: a BO3D mesh is shown where its entity stands
// in the scene (the parents' and its own transform), its normals turned
// with it.
func TestMeshSceneTransform(t *testing.T) {
	s2 := float32(math.Sqrt2 / 2)
	f := &bo3d.File{Version: bo3d.Version, FloatBits: 32, Entities: []bo3d.Entity{
		{Parent: -1, Name: "root", Position: [3]float32{1, 0, 0}, Scale: [3]float32{2, 2, 2}, Rotation: [4]float32{1, 0, 0, 0}},
		{Parent: 0, Name: "turned", Position: [3]float32{0, 1, 0}, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{s2, 0, 0, s2}, Mesh: &bo3d.Mesh{
			Vertices: []bo3d.Vertex{
				{Position: [3]float32{0, 0, 0}, Normal: [3]float32{0, 0, 1}},
				{Position: [3]float32{1, 0, 0}, Normal: [3]float32{1, 0, 0}},
				{Position: [3]float32{0, 1, 0}, Normal: [3]float32{0, 1, 0}},
			},
			Triangles: []bo3d.Triangle{{0, 1, 2}},
			Alpha:     1,
		}},
	}}
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	s := newPreviewServer(t, "turned.bo3d", b)
	rec := get(t, s, "/api/mesh?file=0")
	if rec.Code != 200 {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	pos, nor, _ := parseMesh(t, rec.Body.Bytes())
	// The root scales by 2 and moves by (1,0,0); the child turns 90°
	// about z and moves by (0,1,0) in the root's space.
	wantPos := []float32{1, 2, 0, 1, 4, 0, -1, 2, 0}
	wantNor := []float32{0, 0, 1, 0, 1, 0, -1, 0, 0}
	for i := range wantPos {
		if math.Abs(float64(pos[i]-wantPos[i])) > 1e-5 || math.Abs(float64(nor[i]-wantNor[i])) > 1e-5 {
			t.Fatalf("positions %v normals %v, want %v %v", pos, nor, wantPos, wantNor)
		}
	}
}

// TestTexture4K: a 4096x4096 RGBA texture, common in games, previews
// within the budget: its pixels are read into one buffer of their size
// and its image is a view of them (before, the preview claimed twice the
// pixels and a copy, above MaxPreviewBytes, and answered 413).
func TestTexture4K(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64 MiB texture")
	}
	const side = 4096
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = byte(i % 251)
	}
	tex, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("big.bpx", encodeTexture(t, tex, bpx.SectionOptions{Compression: bpx.CompressZlib}))})
	rec := get(t, s, "/api/texture.png?file=0")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	got, err := png.Decode(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if b := got.Bounds(); b.Dx() != side || b.Dy() != side {
		t.Fatalf("PNG of %v", b)
	}
	for _, p := range []image.Point{{0, 0}, {side - 1, side - 1}, {1234, 3210}} {
		if c := color.NRGBAModel.Convert(got.At(p.X, p.Y)); c != img.NRGBAAt(p.X, p.Y) {
			t.Errorf("pixel %v differs", p)
		}
	}
}
