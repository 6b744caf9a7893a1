package explorer

import (
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
	"github.com/gobpx/bpx/formats/bo3d"
	"github.com/gobpx/bpx/internal/testbpx"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

// discardWriter is a ResponseWriter that keeps nothing of the body, so
// that what a request allocates is the server's alone.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (d *discardWriter) Header() http.Header { return d.h }
func (d *discardWriter) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}
func (d *discardWriter) Write(p []byte) (int, error) {
	d.WriteHeader(200)
	d.n += len(p)
	return len(p), nil
}

// TestPreviewCostFactors measures what each decoding path allocates on
// the inputs that take the most memory per byte (TotalAlloc, a bound on
// its peak) against the share of the budget it takes: the factors of
// the package doc must hold. The package's section cache is outside the
// budget: it has a bound of its own.
func TestPreviewCostFactors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of several MiB: skipped with -short")
	}
	rgb := image.NewNRGBA(image.Rect(0, 0, 1024, 1024))
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := range rgb.Pix {
		rgb.Pix[i] = byte(rnd.Uint32()) // noise: PNG cannot compress it
	}
	rgbTex := textureFile(t, rgb, texture.FormatRGB)
	rgbaTex := textureFile(t, rgb, texture.FormatRGBA)
	greyTex := textureFile(t, rgb, texture.FormatGreyScale)
	floatTex := textureFile(t, rgb, texture.FormatFloat)
	const vertices = 200_000
	unknownModel := rawModelFile(t, 0x1234, vertices, make([]byte, 12*vertices), nil)
	bigBO3D := func() []byte {
		m := &bo3d.Mesh{Alpha: 1}
		for i := range 60_000 {
			m.Vertices = append(m.Vertices, bo3d.Vertex{Position: [3]float32{float32(i), 1, 2}, Normal: [3]float32{0, 0, 1}})
			if i >= 2 {
				m.Triangles = append(m.Triangles, bo3d.Triangle{uint16(i - 2), uint16(i - 1), uint16(i)})
			}
		}
		f := &bo3d.File{Version: bo3d.Version, FloatBits: 32, Entities: []bo3d.Entity{
			{Parent: -1, Name: "m", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}, Mesh: m}}}
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}()
	blkTextBig := []byte(strings.Repeat("g{\n"+strings.Repeat("a{}\n", 1000)+"}\n", maxBLKText/4008))
	group := "g{\n" + strings.Repeat("b{}\n", 50_000) + "}\n"
	blkFAT := fatBLK(t, strings.Repeat(group, maxBLKBinary/2/len(group)))
	blkBPXBig := func() []byte {
		var text strings.Builder // named blocks of named parameters: BPXSD objects
		for g := range 200 {
			fmt.Fprintf(&text, "g%d{\n", g)
			for p := range 200 {
				fmt.Fprintf(&text, "p%d:i=1\n", p)
			}
			text.WriteString("}\n")
		}
		b, err := blk.ParseText([]byte(text.String()))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := blk.WriteBPX(&buf, b); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()
	bigTable := tableBytes(t, []table.Column{{Name: "v", Type: table.Uint8, Len: 1}}, 1<<20, uint8(200))
	// Rows of MaxRowSize bools: each makes 6 MiB of JSON.
	var wideCols []table.Column
	var wideRow []any
	for i := range 16 {
		wideCols = append(wideCols, table.Column{Name: fmt.Sprint("c", i), Type: table.Bool, Len: 65535})
		wideRow = append(wideRow, make([]bool, 65535))
	}
	wideTable := tableBytes(t, wideCols, 4, wideRow...)
	manyObjects := map[string]string{}
	for i := range 20_000 {
		manyObjects[fmt.Sprintf("d%d/o%d", i%100, i)] = ""
	}
	inner := packBytes(t, manyObjects, nil)
	files := map[string][]byte{
		"empty.sd": testbpx.WorstBPXSD(maxSD, false), "nulls.sd": testbpx.WorstBPXSD(maxSD, true),
		"rgb.bpx": rgbTex, "rgba.bpx": rgbaTex, "grey.bpx": greyTex, "float.bpx": floatTex, "model.bpx": unknownModel, "big.bo3d": bigBO3D,
		"text.blk": blkTextBig, "fat.blk": blkFAT, "d.bpx": blkBPXBig, "table.bpx": bigTable, "wide.bpx": wideTable, "inner.bpx": inner,
	}
	objs := map[string]string{}
	for n, b := range files {
		objs[n] = string(b)
	}
	s := newServer(t, []File{file("game.bpx", packBytes(t, objs, nil, pack.WithCompression(bpx.CompressNone)))})
	in := func(p string) *subject {
		req := httptest.NewRequest("GET", "/api/preview?path="+p, nil)
		sub, err := s.subject(req)
		if err != nil {
			t.Fatal(err)
		}
		return sub
	}
	size := func(p string) int64 { return int64(len(files[p])) }
	for _, c := range []struct {
		url  string
		cost int64
	}{
		{"/api/sd?path=empty.sd", sdFactor * size("empty.sd")},
		{"/api/sd?path=empty.sd&typed=1", sdFactor * size("empty.sd")},
		{"/api/sd?path=nulls.sd", sdFactor * size("nulls.sd")},
		{"/api/sd?path=nulls.sd&typed=1", sdFactor * size("nulls.sd")},
		{"/api/texture.png?path=rgb.bpx", func() int64 {
			sub := in("rgb.bpx")
			ext, _ := textureExt(sub)
			return textureCost(ext, pixelArray(sub))
		}()},
		{"/api/texture.png?path=rgba.bpx", func() int64 {
			sub := in("rgba.bpx")
			ext, _ := textureExt(sub)
			return textureCost(ext, pixelArray(sub))
		}()},
		{"/api/texture.png?path=grey.bpx", func() int64 {
			sub := in("grey.bpx")
			ext, _ := textureExt(sub)
			return textureCost(ext, pixelArray(sub))
		}()},
		{"/api/texture.png?path=float.bpx", func() int64 {
			sub := in("float.bpx")
			ext, _ := textureExt(sub)
			return textureCost(ext, pixelArray(sub))
		}()},
		{"/api/mesh?path=model.bpx", modelFactor * modelSectionsSize(in("model.bpx").rd)},
		{"/api/mesh?path=big.bo3d", bo3dFactor * size("big.bo3d")},
		{"/api/blk?path=text.blk&as=json", blkTextFactor * blkAnswerFactor * size("text.blk")},
		{"/api/blk?path=text.blk&as=text", blkTextFactor * blkAnswerFactor * size("text.blk")},
		{"/api/blk?path=fat.blk&as=json", blkBinaryFactor * blkAnswerFactor * size("fat.blk")},
		{"/api/blk?path=d.bpx&as=json", func() int64 {
			return sdFactor * blkAnswerFactor * int64(in("d.bpx").rd.FindSection(bpx.SectionTypeStructuredData).USize)
		}()},
		{"/api/table?path=table.bpx&limit=5000", func() int64 { sec, ss, _ := tableSections(in("table.bpx"), -1); return tableCost(sec, ss) }()},
		{"/api/table?path=wide.bpx", func() int64 { sec, ss, _ := tableSections(in("wide.bpx"), -1); return tableCost(sec, ss) }()},
		{"/api/container?path=inner.bpx", packageOpenCost(in("inner.bpx").rd)},
	} {
		// Once to fill the package's cache of decompressed sections
		// (pack.DefaultCacheSize, a bound of its own, shared by every
		// request), then measured.
		serveAllocated(s, c.url)
		code, a := serveAllocated(s, c.url)
		if code != 200 {
			t.Errorf("%s: status %d", c.url, code)
			continue
		}
		t.Logf("%s: allocated %d bytes, %.2f of its share %d", c.url, a, float64(a)/float64(c.cost), c.cost)
		if int64(a) > c.cost {
			t.Errorf("%s: allocated %d bytes, above its share of the budget (%d)", c.url, a, c.cost)
		}
	}
}

// serveAllocated serves url on s and returns the answer's status and the
// bytes the request allocated.
func serveAllocated(s *Server, url string) (int, uint64) {
	var w *discardWriter
	a := allocated(func() {
		w = &discardWriter{h: http.Header{}}
		req := httptest.NewRequest("GET", url, nil)
		req.Host = "localhost"
		s.ServeHTTP(w, req)
	})
	return w.code, a
}

// tableBytes is a container of a table of columns holding n copies of
// row, and its strings section, stored.
func tableBytes(t testing.TB, columns []table.Column, n int, row ...any) []byte {
	t.Helper()
	strs := &bpxstrings.Builder{}
	tb, err := table.NewBuilder(strs, "t", columns)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := tb.Append(row...); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	w.WriteSection(bpx.SectionTypeTable, bpx.SectionOptions{}, tb.Bytes())
	w.WriteSection(bpx.SectionTypeStrings, bpx.SectionOptions{}, strs.Bytes())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
