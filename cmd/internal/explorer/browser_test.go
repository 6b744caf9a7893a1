//go:build !js && !wasip1

// The browser test starts Chromium, which WebAssembly cannot.

package explorer

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"net/http/httptest"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdpinput "github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/bo3d"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/texture"
)

// screenshot names the PNG file TestBrowser writes its screenshot to (the
// README's docs/serve.png):
//
//	go test -run TestBrowser ./cmd/internal/explorer -args -screenshot ../../../docs/serve.png
var screenshot = flag.String("screenshot", "", "write TestBrowser's screenshot (a texture open) to this PNG `file`")

// chromium is Debian's Chromium, which .ci/run installs when it can.
const chromium = "/usr/bin/chromium"

// The browser's window, and so the screenshot's size.
const viewW, viewH = 1200, 750

// browserFlags run Chromium headless, quiet and isolated. WebGL needs no
// GPU: with --disable-gpu, ANGLE draws with SwiftShader, its software
// Vulkan, which --use-angle=swiftshader picks and
// --enable-unsafe-swiftshader allows without a deprecation warning.
func browserFlags(profile string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(viewW, viewH),
	)
}

// The objects of the test package.
const (
	texturePath = "textures/stone.bpx"
	modelPath   = "models/gem.bpx"
	textPath    = "docs/readme.txt"
	imagePath   = "images/logo.png"
	cubePath    = "textures/sky.bpx"
	blobPath    = "data/blob.bin"
	blobSize    = 5000 // a page of the hex view (4096) and a bit
	fakePNG     = "images/fake.png"
	invalidName = "../evil.txt"
	manyFiles   = 1234 // more than two pages of the listing
	markupPath  = "docs/<img src=x onerror=alert(1)>.txt"
	tablePath   = "data/items.bpx"
	blkPath     = "config/game.blk"
	browserBLK  = "\"title\":t = \"demo\"\n\"hud\" {\n  \"scale\":i = 2\n}\n"
	tableRows   = 150 // a page and a half of the table view
	readme      = "Hello from the test package.\n<b>not bold</b>\n"
)

// testTexture is 64x64 RGBA: opaque colour bands in the top half, fading
// alpha below.
func testTexture() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			a := uint8(255)
			if y >= 32 {
				a = uint8(248 - (y-32)*8)
			}
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 4), uint8(y * 4), uint8(255 - x*4), a})
		}
	}
	return img
}

// octahedron is a model of 6 vertices and 8 triangles.
func octahedron() *model.Model {
	var f []float32
	for _, p := range [][3]float32{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
		f = append(f, p[0], p[1]*1.5, p[2], p[0], p[1], p[2], 0, 0) // position, normal, uv
	}
	ix := &model.IndexArray{Indices: []uint32{0, 2, 4, 4, 2, 1, 1, 2, 5, 5, 2, 0, 4, 3, 0, 1, 3, 4, 5, 3, 1, 0, 3, 5}}
	return &model.Model{
		TypeExt: model.TypeExt{VertexFormatHash: sd.Hash("formats/pnu.vf")},
		VertexArrays: []*model.VertexArray{{
			MaterialHash: sd.Hash("materials/gem.mat"),
			VertexSize:   model.PNUSize,
			Data:         model.Float32Bytes(f...),
			Indices:      ix,
		}},
		IndexArrays: []*model.IndexArray{ix},
	}
}

// cubeColors are the faces of the cube map, one colour each.
var cubeColors = []color.NRGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 255}, {0, 255, 255, 255}, {255, 0, 255, 255}}

// browserPackage writes the package the browser explores.
func browserPackage(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.AllowInvalidNames())
	if err := w.SetMetadata(sd.NewObject().Set("title", sd.String("browser test"))); err != nil {
		t.Fatal(err)
	}
	add := func(name string, write func(f *bytes.Buffer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(b.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	tex, err := texture.FromImage(testTexture(), texture.FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	crc := bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}
	add(texturePath, func(b *bytes.Buffer) error { return texture.Encode(b, tex, crc) })
	add(modelPath, func(b *bytes.Buffer) error { return model.Encode(b, octahedron(), crc) })
	add(textPath, func(b *bytes.Buffer) error { _, err := b.WriteString(readme); return err })
	add(imagePath, func(b *bytes.Buffer) error {
		img := image.NewNRGBA(image.Rect(0, 0, 16, 8))
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 7)
		}
		return png.Encode(b, img)
	})
	var faces []image.Image
	for _, c := range cubeColors {
		img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
		for i := 0; i < len(img.Pix); i += 4 {
			copy(img.Pix[i:], []uint8{c.R, c.G, c.B, c.A})
		}
		faces = append(faces, img)
	}
	cube, err := texture.FromImages(faces, texture.FormatRGBA, texture.FlagCubeMap)
	if err != nil {
		t.Fatal(err)
	}
	add(cubePath, func(b *bytes.Buffer) error { return texture.Encode(b, cube, crc) })
	add(blobPath, func(b *bytes.Buffer) error {
		b.Write([]byte{0, 1, 2, 0xfe, 'b', 'p', 'x'})
		_, err := b.Write(make([]byte, blobSize-7))
		return err
	})
	add(fakePNG, func(b *bytes.Buffer) error { _, err := b.WriteString("no PNG at all\n"); return err })
	add(invalidName, func(b *bytes.Buffer) error { _, err := b.WriteString("not a path\n"); return err })
	for i := range manyFiles {
		add(fmt.Sprintf("many/%04d.txt", i), func(b *bytes.Buffer) error { return b.WriteByte('x') })
	}
	add(tablePath, browserTableFile)
	add(blkPath, func(b *bytes.Buffer) error { _, err := b.WriteString(browserBLK); return err })
	add(markupPath, func(b *bytes.Buffer) error { _, err := b.WriteString("a name that is markup\n"); return err })
	add("scripts/main.lua", func(b *bytes.Buffer) error { _, err := b.WriteString("print('hi')\n"); return err })
	add("textures/readme.md", func(b *bytes.Buffer) error { _, err := b.WriteString("# textures\n"); return err })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// browserTableFile writes a container with a table section of tableRows rows
// and its strings section.
func browserTableFile(b *bytes.Buffer) error {
	var names bpxstrings.Builder
	tb, err := table.NewBuilder(&names, "items", []table.Column{
		{Name: "id", Type: table.Uint32, Len: 1},
		{Name: "name", Type: table.Varchar, Len: 12},
	})
	if err != nil {
		return err
	}
	for i := range tableRows {
		if _, err := tb.Append(uint32(i), fmt.Sprintf("item %d", i)); err != nil {
			return err
		}
	}
	w := bpx.NewWriter(b)
	w.SetType('Z')
	for _, s := range []struct {
		typ  uint8
		data []byte
	}{{bpx.SectionTypeTable, tb.Bytes()}, {bpx.SectionTypeStrings, names.Bytes()}} {
		sw, err := w.CreateSection(s.typ, bpx.SectionOptions{})
		if err != nil {
			return err
		}
		sw.Write(s.data)
	}
	return w.Close()
}

// console collects what the page writes to the console.
type console struct {
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
}

// errors returns the errors and uncaught exceptions.
func (c *console) errors() []string {
	return c.filter(func(m chromedp.ConsoleMessage) bool { return m.Type == chromedp.ConsoleError || m.IsException() })
}

// warnings returns the warnings.
func (c *console) warnings() []string {
	return c.filter(func(m chromedp.ConsoleMessage) bool { return m.Type == chromedp.ConsoleWarning })
}

func (c *console) filter(keep func(chromedp.ConsoleMessage) bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.msgs {
		if keep(m) {
			out = append(out, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
		}
	}
	return out
}

// TestBrowser loads the page in headless Chromium and uses it as a modder
// would: a texture and a cube map (the decoded pixels), a model (the
// WebGL pixels, a drag), the container view (verify, section bytes, a
// table, strings, metadata as JSON), text, BLK, an image, the hex view,
// a failed preview, paging, search, the keyboard, reload and back. The
// console must stay free of errors and exceptions.
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no Chromium to test the page with (install Debian's chromium package): %v", err)
	}
	start := time.Now()
	data := browserPackage(t)
	srv, err := New([]File{{Name: "game.bpx", R: bytes.NewReader(data), Size: int64(len(data))}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv) // on 127.0.0.1
	defer ts.Close()

	ctx, con := startBrowser(t)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nconsole errors: %q", what, err, con.errors())
		}
	}
	click := func(sel string) { t.Helper(); do("click "+sel, chromedp.Click(chromedp.CSS(sel))) }
	entry := func(path string) string { return fmt.Sprintf(`#list li[data-path=%q]`, path) }

	do("load the page", chromedp.EmulateViewport(viewW, viewH), chromedp.Navigate(ts.URL+"/"))
	waitJS(t, ctx, "the file in the header", `document.querySelector('#files').textContent.includes('game.bpx')`, nil)

	// A texture: the PNG decodes to 64x64, with the pixels written.
	waitJS(t, ctx, "the root listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry("textures")), nil)
	click(entry("textures"))
	waitJS(t, ctx, "the textures listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry(texturePath)), nil)
	click(entry(texturePath))
	var tex struct {
		W, H, Opaque int
		Pixel        []int
	}
	waitJS(t, ctx, "the texture decoded", `(() => {
		const i = document.querySelector('img.tex');
		if (!i || !i.complete || !i.naturalWidth) return null;
		const c = document.createElement('canvas');
		c.width = i.naturalWidth; c.height = i.naturalHeight;
		const g = c.getContext('2d');
		g.drawImage(i, 0, 0);
		const d = g.getImageData(0, 0, c.width, c.height).data;
		let opaque = 0;
		for (let k = 3; k < d.length; k += 4) if (d[k] === 255) opaque++;
		const at = (10 * c.width + 5) * 4;
		return {W: c.width, H: c.height, Opaque: opaque, Pixel: [...d.slice(at, at + 4)]};
	})()`, &tex)
	if want := testTexture().NRGBAAt(5, 10); tex.W != 64 || tex.H != 64 || tex.Opaque != 64*32 ||
		fmt.Sprint(tex.Pixel) != fmt.Sprint([]int{int(want.R), int(want.G), int(want.B), int(want.A)}) {
		t.Errorf("texture in the page: %dx%d, %d opaque pixels, pixel (5,10) %v; want 64x64, %d, %v", tex.W, tex.H, tex.Opaque, tex.Pixel, 64*32, want)
	}
	// The hash keeps the place: a reload shows the texture again.
	do("reload", chromedp.Reload())
	waitJS(t, ctx, "the texture after a reload", `(document.querySelector('img.tex') || {}).naturalWidth === 64 &&
		document.querySelector('#list li[aria-selected="true"]') !== null`, nil)
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	checkScreenshot(t, shot)

	// A model: the WebGL canvas shows pixels other than the background.
	click(`#crumbs a`) // root
	waitJS(t, ctx, "the root listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry("models")), nil)
	click(entry("models"))
	waitJS(t, ctx, "the models listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry(modelPath)), nil)
	click(entry(modelPath))
	var drawn struct{ W, H, Differ int }
	waitJS(t, ctx, "the mesh drawn", `(() => {
		const c = document.querySelector('canvas.mesh');
		if (!c || !c.dataset.drawn) return null;
		const gl = c.getContext('webgl2') || c.getContext('webgl');
		const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
		const px = new Uint8Array(w * h * 4);
		gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
		let n = 0;
		for (let k = 0; k < px.length; k += 4) {
			if (Math.abs(px[k] - px[0]) + Math.abs(px[k+1] - px[1]) + Math.abs(px[k+2] - px[2]) > 30) n++;
		}
		return {W: w, H: h, Differ: n};
	})()`, &drawn)
	if drawn.W < 100 || drawn.H < 100 || drawn.Differ < drawn.W*drawn.H/50 {
		t.Errorf("mesh canvas %dx%d: %d pixels differ from the background, want at least 2%%", drawn.W, drawn.H, drawn.Differ)
	}
	facts := waitJS(t, ctx, "the mesh facts", `document.querySelector('.meshbox .facts').textContent`, nil)
	for _, want := range []string{"vertices6", "triangles8"} {
		if !strings.Contains(string(facts), want) {
			t.Errorf("mesh facts %s, want %s", facts, want)
		}
	}

	// A drag turns the model: the canvas draws again, differently.
	var box struct{ X, Y float64 }
	waitJS(t, ctx, "the canvas", `(() => {
		const r = document.querySelector('canvas.mesh').getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2};
	})()`, &box)
	before, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('canvas.mesh').toDataURL()`))
	if err != nil {
		t.Fatal(err)
	}
	do("drag the model", chromedp.MouseEvent(cdpinput.DispatchMouseEventTypeMousePressed, box.X, box.Y, chromedp.ButtonLeft),
		chromedp.MouseEvent(cdpinput.DispatchMouseEventTypeMouseMoved, box.X+80, box.Y+30, chromedp.ButtonLeft),
		chromedp.MouseEvent(cdpinput.DispatchMouseEventTypeMouseReleased, box.X+80, box.Y+30, chromedp.ButtonLeft))
	waitJS(t, ctx, "the model turned", fmt.Sprintf(`document.querySelector('canvas.mesh').toDataURL() !== %q`, before), nil)

	// The container view of the model: verify every section, and show
	// the bytes of one.
	click(`#tab-container`)
	waitJS(t, ctx, "the section table", `document.querySelectorAll('table.sections tbody tr').length > 0`, nil)
	click(`button.verify-all`)
	waitJS(t, ctx, "every section verified", `(() => {
		const s = [...document.querySelectorAll('table.sections td.status')];
		return s.length > 0 && s.every((c) => c.classList.contains('ok'));
	})()`, nil)
	click(`table.sections tbody tr:last-child button`) // the index array
	sec := waitJS(t, ctx, "the section's bytes", `(() => {
		const h = document.querySelector('.section-view pre.hex');
		return h && h.textContent && [h.textContent.split('\n')[0], document.querySelector('.section-view .meta').textContent];
	})()`, nil)
	// 24 indices after their count: 96 bytes after 18 00 00 00.
	if want := `["00000000  18 00 00 00 00 00 00 00  02 00 00 00 04 00 00 00  ................","bytes 0\u2013100 of 100 (100 B)"]`; string(sec) != want {
		t.Errorf("index array bytes %s, want %s", sec, want)
	}

	// A text file, shown as text (the markup in it too).
	do("open the text", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = '#dir=docs&sel=%s'`, textPath)))
	got := waitJS(t, ctx, "the text", `(document.querySelector('pre.text') || {}).textContent || null`, nil)
	var text string
	json.Unmarshal(got, &text)
	if text != readme {
		t.Errorf("text preview %q, want %q", text, readme)
	}
	// Names are text, never markup.
	do("open the markup name", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = '#dir=docs&sel=' + encodeURIComponent(%q)`, markupPath)))
	waitJS(t, ctx, "the markup name as text", fmt.Sprintf(`(() => {
		const h = document.querySelector('.phead h2');
		return h && h.textContent === %q && [...document.querySelectorAll('#list .name')].some((n) => n.textContent === %q) &&
			document.querySelectorAll('main img').length === 0;
	})()`, markupPath, path.Base(markupPath)), nil)

	// The page's own functions: computed normals, a bad index, a hex line.
	var units struct {
		Normal []float64
		Bad    string
		Hex    string
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`(async () => {
		const mesh = await import('/static/mesh.js'), views = await import('/static/views.js');
		const build = (last) => {
			const b = new ArrayBuffer(8 + 24 * 3 + 12), d = new DataView(b);
			d.setUint32(0, 3, true); d.setUint32(4, 3, true);
			[0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((v, i) => d.setFloat32(8 + 4 * i, v, true));
			[0, 1, last].forEach((v, i) => d.setUint32(8 + 72 + 4 * i, v, true));
			return b;
		};
		let bad = '';
		try { mesh.parseMesh(build(3)); } catch (e) { bad = e.message; }
		return {Normal: [...mesh.parseMesh(build(2)).nrm], Bad: bad, Hex: views.hexLines(new Uint8Array([0x41, 0, 0xff]), 16)};
	})()`, chromedp.EvalAwaitPromise))
	if err == nil {
		err = json.Unmarshal(res, &units)
	}
	if err != nil {
		t.Fatalf("page functions: %v", err)
	}
	if fmt.Sprint(units.Normal) != "[0 0 1 0 0 1 0 0 1]" || !strings.Contains(units.Bad, "beyond 3 vertices") ||
		units.Hex != "00000010  41 00 ff"+strings.Repeat(" ", 13*3+1)+"  A..\n" {
		t.Errorf("page functions: normals %v, bad index %q, hex %q", units.Normal, units.Bad, units.Hex)
	}

	// An image the browser decodes itself, chosen with the keyboard.
	do("back to the root", chromedp.Evaluate[chromedp.Void](`location.hash = ''`))
	waitJS(t, ctx, "the root listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry("images")), nil)
	do("focus the listing", chromedp.Focus(chromedp.CSS(`#list`)), chromedp.KeyEvent(kb.Home))
	for range 10 {
		active, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#list .active').dataset.path`))
		if active == "images" {
			break
		}
		do("key down", chromedp.KeyEvent(kb.ArrowDown))
	}
	do("enter", chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "the images listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry(imagePath)), nil)
	click(entry(imagePath))
	waitJS(t, ctx, "the image", `(document.querySelector('img.tex') || {}).naturalWidth === 16`, nil)

	// A long listing comes a page at a time: scrolling down loads the next.
	do("open many", chromedp.Evaluate[chromedp.Void](`location.hash = '#dir=many'`))
	const count = `document.querySelectorAll('#list li[role="option"]').length`
	waitJS(t, ctx, "the first page", count+` === 500`, nil)
	for _, want := range []int{1000, manyFiles} {
		do("scroll down", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#scroller'); s.scrollTop = s.scrollHeight; })()`))
		waitJS(t, ctx, fmt.Sprintf("%d entries", want), fmt.Sprintf(`%s === %d`, count, want), nil)
	}
	if last := waitJS(t, ctx, "the last entry", `document.querySelector('#list li:last-child').dataset.path`, nil); string(last) != fmt.Sprintf(`"many/%04d.txt"`, manyFiles-1) {
		t.Errorf("last entry %s", last)
	}

	// A cube map: face -Y (layer 3) shows its colour.
	do("open the cube map", chromedp.Evaluate[chromedp.Void](`location.hash = '#dir=textures&sel=textures%2Fsky.bpx'`))
	waitJS(t, ctx, "the face selector", `[...document.querySelectorAll('.preview select[aria-label="Layer"] option')].map((o) => o.textContent).join() === 'face +X,face -X,face +Y,face -Y,face +Z,face -Z'`, nil)
	do("pick face -Y", chromedp.SetValue(chromedp.CSS(`.preview select[aria-label="Layer"]`), "3"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.preview select[aria-label="Layer"]').dispatchEvent(new Event('change'))`))
	var face []int
	waitJS(t, ctx, "face -Y decoded", `(() => {
		const i = document.querySelector('img.tex');
		if (!i.complete || !i.naturalWidth || !i.src.endsWith('layer=3')) return null;
		const c = document.createElement('canvas');
		c.width = c.height = 8;
		const g = c.getContext('2d');
		g.drawImage(i, 0, 0);
		return [...g.getImageData(4, 4, 1, 1).data];
	})()`, &face)
	if c := cubeColors[3]; fmt.Sprint(face) != fmt.Sprint([]int{int(c.R), int(c.G), int(c.B), int(c.A)}) {
		t.Errorf("cube face -Y in the page %v, want %v", face, c)
	}

	// Search all below: every file whose path holds "stone".
	do("search", chromedp.Evaluate[chromedp.Void](`location.hash = ''`))
	waitJS(t, ctx, "the root listing", fmt.Sprintf(`!!document.querySelector(%q)`, entry("textures")), nil)
	do("type a filter", chromedp.Click(chromedp.CSS(`#deep`)), chromedp.SendKeys(chromedp.CSS(`#q`), "STONE"))
	found := waitJS(t, ctx, "the search result", `(() => {
		const l = [...document.querySelectorAll('#list li')];
		return l.length === 1 && l[0].dataset.path;
	})()`, nil)
	if string(found) != `"`+texturePath+`"` {
		t.Errorf("deep search for STONE found %s, want %s", found, texturePath)
	}

	// A table section, a page of 100 rows at a time; its strings section.
	do("open the table file", chromedp.Evaluate[chromedp.Void](`location.hash = '#dir=data&sel=data%2Fitems.bpx'`))
	waitJS(t, ctx, "its sections", `document.querySelectorAll('table.sections tbody tr').length === 2`, nil)
	showSection := func(view string) {
		do("show the "+view, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`[...document.querySelectorAll('table.sections button')].find((b) => b.textContent === %q).click()`, view)))
	}
	showSection("table")
	const rows = `(() => {
		const r = document.querySelectorAll('.section-view tbody tr');
		return r.length && [r.length, r[0].textContent, document.querySelector('.section-view .meta').textContent];
	})()`
	page1 := waitJS(t, ctx, "the first rows", rows, nil)
	click(`.section-view .pager button:last-child`) // next
	page2 := waitJS(t, ctx, "the next rows", strings.Replace(rows, "r.length &&", "r.length !== 100 &&", 1), nil)
	var p1, p2 []any
	json.Unmarshal(page1, &p1)
	json.Unmarshal(page2, &p2)
	if want1, want2 := "[100 00item 0 items: rows 0–100 of 150]", "[50 100100item 100 items: rows 100–150 of 150]"; fmt.Sprint(p1) != want1 || fmt.Sprint(p2) != want2 {
		t.Errorf("table pages:\n%v\n%v\nwant\n%s\n%s", p1, p2, want1, want2)
	}
	showSection("strings")
	strs := waitJS(t, ctx, "the strings", `(document.querySelector('.section-view ol.strings') || {}).textContent || null`, nil)
	if !strings.Contains(string(strs), `0x0 \"items\"`) {
		t.Errorf("strings view %s, want items at 0x0", strs)
	}

	// A BLK file as engine text, then as JSON.
	do("open the BLK file", chromedp.Evaluate[chromedp.Void](`location.hash = '#dir=config&sel=config%2Fgame.blk'`))
	blkShown := waitJS(t, ctx, "the BLK text", `(document.querySelector('.preview pre.text') || {}).textContent || null`, nil)
	if !strings.Contains(string(blkShown), `title`) || !strings.Contains(string(blkShown), `scale`) {
		t.Errorf("BLK text %s, want the title and hud's scale", blkShown)
	}
	do("BLK as JSON", chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('.preview .switch button')].find((b) => b.textContent === 'JSON').click()`))
	// The tree opens its nodes on their toggle event, after it is shown:
	// wait for the content, not for the first text.
	blkJSON := waitJS(t, ctx, "the BLK JSON", `(() => { const j = document.querySelector('.preview .json');
		return j && j.textContent.includes('hud') && j.textContent; })()`, nil)
	if !strings.Contains(string(blkJSON), `demo`) || !strings.Contains(string(blkJSON), `hud`) {
		t.Errorf("BLK JSON %s, want the title and hud", blkJSON)
	}

	// A file whose name says PNG and whose bytes do not: the error, then
	// the bytes.
	do("open the fake PNG", chromedp.Evaluate[chromedp.Void](`location.hash = '#dir=images&sel=images%2Ffake.png'`))
	fake := waitJS(t, ctx, "the error above the hex view", `(() => {
		const e = document.querySelector('.preview > .error'), h = document.querySelector('.preview pre.hex');
		return e && h && (e.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING) && e.textContent;
	})()`, nil)
	if !strings.Contains(string(fake), "fake.png") {
		t.Errorf("fake PNG error %s, want one naming the file", fake)
	}

	// Bytes of no known kind: the hex view.
	do("open the blob", chromedp.Evaluate[chromedp.Void](`location.hash = '#dir=data&sel=data%2Fblob.bin'`))
	const hexLines = `(() => {
		const h = document.querySelector('pre.hex');
		return h && h.textContent && [h.textContent.split('\n').length - 1, h.textContent.slice(0, 33)];
	})()`
	dump := waitJS(t, ctx, "the hex view", hexLines, nil)
	click(`.hexbox button`) // more
	dump2 := waitJS(t, ctx, "the hex view's next page", strings.Replace(hexLines, "h.textContent &&", "h.textContent.length > 20000 &&", 1), nil)
	if want, want2 := `[256,"00000000  00 01 02 fe 62 70 78 00"]`, `[313,"00000000  00 01 02 fe 62 70 78 00"]`; string(dump) != want || string(dump2) != want2 {
		t.Errorf("hex view: %s then %s lines, want %s then %s", dump, dump2, want, want2)
	}
	if hidden := waitJS(t, ctx, "no more", `document.querySelector('.hexbox button').hidden`, nil); string(hidden) != "true" {
		t.Errorf("more button hidden: %s", hidden)
	}

	// A name that is no path: listed apart, downloadable by index.
	invalid := waitJS(t, ctx, "the invalid names", `(() => {
		const d = document.querySelector('details.invalid');
		return d && {text: d.textContent, href: d.querySelector('a').getAttribute('href')};
	})()`, nil)
	if !strings.Contains(string(invalid), `\"../evil.txt\"`) || !strings.Contains(string(invalid), `/api/object?file=0&index=`) {
		t.Errorf("invalid names section: %s", invalid)
	}

	// The package's container: its metadata section as a JSON tree.
	click(`#files a`)
	waitJS(t, ctx, "the package's sections", `document.querySelectorAll('table.sections tbody tr').length > 0`, nil)
	// One line says whether it is signed (bpx sign): not this one.
	waitJS(t, ctx, "the signature line", `(() => { const dt = [...document.querySelectorAll('dl.facts dt')].find((d) => d.textContent === 'signature');
		return dt && dt.nextElementSibling.textContent === 'none'; })()`, nil)
	do("open the metadata", chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('table.sections button')].find((b) => b.textContent === 'sd').click()`))
	meta := waitJS(t, ctx, "the metadata", `(() => { const j = document.querySelector('.section-view .json');
		return j && j.textContent.includes('"browser test"') && j.textContent; })()`, nil)
	if !strings.Contains(string(meta), `\"browser test\"`) {
		t.Errorf("metadata view %s, want the title", meta)
	}
	do("typed view", chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('.section-view .switch button')].find((b) => b.textContent === 'typed').click()`))
	waitJS(t, ctx, "the typed metadata", `(() => {
		const on = document.querySelector('.section-view .switch [aria-pressed="true"]');
		const j = document.querySelector('.section-view .json');
		return on && on.textContent === 'typed' && j && j.textContent.includes('"browser test"');
	})()`, nil)

	// Back returns to the hex view the container replaced.
	do("back", chromedp.NavigateBack())
	waitJS(t, ctx, "the hex view again", `location.hash === '#dir=data&sel=data%2Fblob.bin' && !!document.querySelector('pre.hex')`, nil)

	for _, w := range con.warnings() {
		t.Logf("console warning: %s", w)
	}
	if errs := con.errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	t.Logf("TestBrowser took %v (Chromium included)", time.Since(start).Round(time.Millisecond))
}

// startBrowser starts Chromium for the test, which closes it, and returns
// the context to drive it with (2 minutes at most) and its console.
func startBrowser(t *testing.T) (context.Context, *console) {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserFlags(t.TempDir())...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	// The first run starts the browser, and lives as long as its context.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("Chromium at %s does not start: %v", chromium, err)
	}
	con := &console{}
	msgs := chromedp.Console(bctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			con.mu.Lock()
			con.msgs = append(con.msgs, m)
			con.mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute) // about 5 s when the machine is idle
	t.Cleanup(cancel)
	return ctx, con
}

// waitJS evaluates expr until it is truthy and decodes it into v (when not
// nil). chromedp.Poll cannot be used: it compiles the predicate with new
// Function, which the page's CSP forbids; an evaluation from DevTools
// is allowed.
func waitJS(t *testing.T, ctx context.Context, what, expr string, v any) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
		switch s := string(res); {
		case err == nil && s != "" && s != "null" && s != "false" && s != "0" && s != `""`:
			if v != nil {
				if err := json.Unmarshal(res, v); err != nil {
					t.Fatalf("%s: %s: %v", what, res, err)
				}
			}
			return res
		case time.Now().After(deadline) || ctx.Err() != nil:
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + '\n' + document.querySelector('main').innerText`))
			t.Fatalf("waiting for %s: %s, %v\npage: %s", what, res, err, page)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkScreenshot checks that shot is a PNG of the window and writes it
// to the -screenshot file, when given.
func checkScreenshot(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != viewW || b.Dy() != viewH {
		t.Errorf("screenshot %v, want %dx%d", b, viewW, viewH)
	}
	// A page that rendered is not one colour.
	seen := map[color.RGBA]bool{}
	for y := 0; y < viewH; y += 7 {
		for x := 0; x < viewW; x += 7 {
			seen[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	if len(seen) < 10 {
		t.Errorf("screenshot has %d colours, want a rendered page", len(seen))
	}
	if *screenshot != "" {
		if err := os.WriteFile(*screenshot, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d bytes", *screenshot, len(shot))
	}
}

// TestBrowserLayers: a stack (bpx serve -L) shows its layers in the
// header and the mod's file over the base's.
func TestBrowserLayers(t *testing.T) {
	needChromium(t)
	pkg := func(name string, files map[string]string) File {
		var buf bytes.Buffer
		w := pack.NewWriter(&buf)
		for _, n := range slices.Sorted(maps.Keys(files)) {
			f, err := w.Create(n)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte(files[n]))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return File{Name: name, R: bytes.NewReader(buf.Bytes()), Size: int64(buf.Len())}
	}
	base := pkg("base.bpx", map[string]string{"a.txt": "from the base\n", "b.txt": "only in the base\n"})
	mod := pkg("mod.bpx", map[string]string{"a.txt": "from the mod\n"})
	url := serveForBrowser(t, []File{base, mod}, WithLayers())
	ctx, con := startBrowser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url+"/#sel=a.txt")); err != nil {
		t.Fatal(err)
	}
	var header, text string
	waitJS(t, ctx, "the layers", `(() => { const h = document.querySelector('#files').textContent;
		return h.includes('mod.bpx') && h.includes('layers') ? h : null; })()`, &header)
	if !strings.Contains(header, "base.bpx") {
		t.Errorf("header %q: want both layers", header)
	}
	waitJS(t, ctx, "the mod's a.txt", `(document.querySelector('pre.text') || {}).textContent || null`, &text)
	if text != "from the mod\n" {
		t.Errorf("a.txt shows %q, want the mod's", text)
	}
	var names string
	waitJS(t, ctx, "the listing", `[...document.querySelectorAll('#list li')].map((li) => li.dataset.path).join(' ') || null`, &names)
	if names != "a.txt b.txt" {
		t.Errorf("listing %q, want a.txt b.txt", names)
	}
	if errs := con.errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserInvalidScope: with several packages, the page lists the
// invalid names of all of them at the root, and inside one package only
// that package's.
func TestBrowserInvalidScope(t *testing.T) {
	needChromium(t)
	pkg := func(invalid string) File {
		var buf bytes.Buffer
		w := pack.NewWriter(&buf, pack.AllowInvalidNames())
		for _, name := range []string{"ok.txt", invalid} {
			f, err := w.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte(name))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return File{Name: strings.TrimPrefix(invalid, "../") + ".bpx", R: bytes.NewReader(buf.Bytes()), Size: int64(buf.Len())}
	}
	url := serveForBrowser(t, []File{pkg("../a-evil"), pkg("../b-evil")})
	ctx, con := startBrowser(t)
	shown := func(hash string) string {
		t.Helper()
		// A new page each time (the query), and its names once every
		// package has answered.
		if _, err := chromedp.Run(ctx, chromedp.Navigate(url+"/?"+hash[1:]+hash)); err != nil {
			t.Fatal(err)
		}
		var names string
		waitJS(t, ctx, "the invalid names of "+hash, `(() => {
			const box = document.querySelector('#invalid > div');
			if (!box || box.dataset.loading !== 'false') return null;
			return [...box.querySelectorAll('details.invalid .name')].map((x) => x.textContent).sort().join(' ') || null;
		})()`, &names)
		return names
	}
	if got, want := shown("#"), `"../a-evil" "../b-evil"`; got != want {
		t.Errorf("root: invalid names %s, want %s", got, want)
	}
	if got, want := shown("#dir=b-evil.bpx"), `"../b-evil"`; got != want {
		t.Errorf("inside b-evil.bpx: invalid names %s, want %s", got, want)
	}
	if errs := con.errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserWindingLit: a mesh wound clockwise (as Direct3D assets are)
// is lit by its normals as brightly as the same mesh wound the other way.
func TestBrowserWindingLit(t *testing.T) {
	needChromium(t)
	// A square facing +z, its normals too, in two triangles.
	square := func(indices ...uint32) *model.Model {
		var f []float32
		for _, p := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			f = append(f, p[0], p[1], 0, 0, 0, 1, 0, 0) // position, normal, uv
		}
		ix := &model.IndexArray{Indices: indices}
		return &model.Model{
			TypeExt:      model.TypeExt{VertexFormatHash: bo3d.VertexFormatPNUHash}, // normals read, not computed
			VertexArrays: []*model.VertexArray{{VertexSize: model.PNUSize, Data: model.Float32Bytes(f...), Indices: ix}},
			IndexArrays:  []*model.IndexArray{ix},
		}
	}
	ccw, cw := square(0, 1, 2, 0, 2, 3), square(0, 2, 1, 0, 3, 2)
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	for name, m := range map[string]*model.Model{"ccw.bpx": ccw, "cw.bpx": cw} {
		var b bytes.Buffer
		if err := model.Encode(&b, m, bpx.SectionOptions{}); err != nil {
			t.Fatal(err)
		}
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b.Bytes())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	url := serveForBrowser(t, []File{{Name: "winding.bpx", R: bytes.NewReader(buf.Bytes()), Size: int64(buf.Len())}})
	ctx, con := startBrowser(t)
	meanRed := func(name string) int {
		t.Helper()
		// A query of its own makes each a new page, not a hash change
		// that the old canvas could answer.
		if _, err := chromedp.Run(ctx, chromedp.Navigate(url+"/?"+name+"#sel="+name)); err != nil {
			t.Fatal(err)
		}
		var red int
		waitJS(t, ctx, "the mesh "+name, fmt.Sprintf(`(() => {
			if (!location.search.includes(%q)) return null;
			const c = document.querySelector('canvas.mesh');
			if (!c || !c.dataset.drawn) return null;
			const gl = c.getContext('webgl2') || c.getContext('webgl');
			const px = new Uint8Array(gl.drawingBufferWidth * gl.drawingBufferHeight * 4);
			gl.readPixels(0, 0, gl.drawingBufferWidth, gl.drawingBufferHeight, gl.RGBA, gl.UNSIGNED_BYTE, px);
			let sum = 0, n = 0; // the mean red of the pixels drawn
			for (let k = 0; k < px.length; k += 4) {
				if (Math.abs(px[k] - px[0]) + Math.abs(px[k+1] - px[1]) + Math.abs(px[k+2] - px[2]) > 30) { sum += px[k]; n++; }
			}
			return n ? Math.round(sum / n) : null;
		})()`, name), &red)
		return red
	}
	a, b := meanRed("ccw.bpx"), meanRed("cw.bpx")
	// Unlit (the ambient term alone) is 51; this light on this square 93.
	if a < 80 || b < 80 || a-b > 5 || b-a > 5 {
		t.Errorf("mean red: %d wound counter-clockwise, %d clockwise; want both lit alike (over 80)", a, b)
	}
	if errs := con.errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// needChromium skips the test when there is no Chromium to drive.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no Chromium to test the page with (install Debian's chromium package): %v", err)
	}
}

// serveForBrowser serves files with a Server on 127.0.0.1 until the test
// ends and returns its URL.
func serveForBrowser(t *testing.T, files []File, opts ...Option) string {
	t.Helper()
	srv, err := New(files, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts.URL
}
