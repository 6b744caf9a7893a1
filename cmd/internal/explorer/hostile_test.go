package explorer

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/shader"
	"github.com/gobpx/bpx/types/texture"
)

// allocated returns the bytes f allocates (TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestContainerShaderBomb (issue 23, finding 1): the container view of a
// shader pack shows its layout and symbols without decompressing its
// shaders, four of 32 MiB of zeros each in a few KB, under the preview
// budget: a request that goes away while previews hold the budget reads
// nothing.
func TestContainerShaderBomb(t *testing.T) {
	const n = 32 << 20
	bomb := testbpx.ShaderBomb(t, 4, n)
	s := newServer(t, []File{file("game.bpx", packBytes(t, map[string]string{"shader.bpx": string(bomb)}, nil)), file("shader.bpx", bomb)})
	for _, u := range []string{"/api/container?path=game.bpx/shader.bpx", "/api/container?file=1"} {
		var c containerAnswer
		if a := allocated(func() { getJSON(t, s, u, 200, &c) }); a > n/2 {
			t.Errorf("%s: allocated %d bytes: the shaders were decompressed", u, a)
		}
		if c.Shader == nil || c.Shader.Layout != "SDK 4" || len(c.Sections) != 6 {
			t.Errorf("%s: shader %+v, %d sections", u, c.Shader, len(c.Sections))
		}
	}
	holdBudget(t, s)
	defer s.budget.release(MaxPreviewBytes)
	if rec := serveGone(t, s, "/api/container?file=1"); rec.Body.Len() != 0 {
		t.Errorf("gone request answered %q", rec.Body)
	}
}

// TestContainerShaderSymbolsLimit: a SymbolTable whose header claims more
// than the budget can read is not read; the layout is still shown.
func TestContainerShaderSymbolsLimit(t *testing.T) {
	b := testbpx.ShaderBomb(t, 1, 16)
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	st := rd.FindSection(shader.SectionSymbolTable)
	s := newServer(t, []File{file("s.bpx", claimUSize(t, b, map[int]uint32{st.Index: MaxPreviewBytes/symbolTableFactor + 1}))})
	var c containerAnswer
	getJSON(t, s, "/api/container?file=0", 200, &c)
	if c.Shader == nil || c.Shader.Symbols != nil || !bytes.Contains([]byte(c.Shader.Error), []byte("preview limit")) {
		t.Errorf("shader %+v", c.Shader)
	}
}

// TestContainerShaderExtendedDataNotCounted: the container view reads a
// shader pack's symbols without its extended data
// (shader.SkipExtendedData), so a large ExtendedData section does not
// keep the symbols from being shown.
func TestContainerShaderExtendedDataNotCounted(t *testing.T) {
	ext := sd.NewObject()
	ext.Set("blob", sd.String(string(bytes.Repeat([]byte("x"), 64))))
	p := &shader.Pack{Target: shader.TargetDX11, Type: shader.PackType('A'),
		Symbols: []shader.Symbol{{Name: "worldViewProj", Register: shader.NoRegister, Flags: shader.FlagExtendedData, Extended: ext}},
		Shaders: []shader.Shader{{Data: []byte("code")}}}
	var b bytes.Buffer
	if err := shader.EncodePack(&b, p); err != nil {
		t.Fatal(err)
	}
	rd, err := bpx.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	ed := rd.FindSection(shader.SectionExtendedData)
	if ed == nil {
		t.Fatal("no ExtendedData section")
	}
	// An ExtendedData section that claims what the budget could not
	// decode: it is never decoded, so it costs nothing.
	f := claimUSize(t, b.Bytes(), map[int]uint32{ed.Index: MaxPreviewBytes/sdFactor + 1})
	s := newServer(t, []File{file("s.bpx", f)})
	var c containerAnswer
	getJSON(t, s, "/api/container?file=0", 200, &c)
	if c.Shader == nil || len(c.Shader.Symbols) != 1 || c.Shader.Error != "" {
		t.Errorf("shader %+v, want its one symbol", c.Shader)
	}
}

// heldWriter is a discardWriter that records what the preview budget
// holds while the answer is written.
type heldWriter struct {
	discardWriter
	s    *Server
	held int64
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.held = max(h.held, h.s.budget.held())
	return h.discardWriter.Write(p)
}

// TestContainerShaderAnswerUnderBudget: the container view of a shader
// pack of many symbols answers megabytes of names, read from a Strings
// section of megabytes more: like every preview, the answer is made under
// the share of the budget, which keeps the answer's bytes while it is
// written (it was written after the share was given back, so any number
// of clients could hold those megabytes at once).
func TestContainerShaderAnswerUnderBudget(t *testing.T) {
	p := &shader.Pack{Target: shader.TargetDX11, Type: shader.PackType('A')}
	for i := range 20_000 {
		p.Symbols = append(p.Symbols, shader.Symbol{Name: fmt.Sprintf("%05d%s", i, strings.Repeat("n", 200)), Register: shader.NoRegister})
	}
	var b bytes.Buffer
	if err := shader.EncodePack(&b, p); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("s.bpx", b.Bytes())})
	w := &heldWriter{discardWriter: discardWriter{h: http.Header{}}, s: s}
	req := httptest.NewRequest("GET", "/api/container?file=0", nil)
	req.Host = "localhost"
	s.ServeHTTP(w, req)
	if w.code != 200 || w.n < 512<<10 {
		t.Fatalf("status %d, %d bytes", w.code, w.n)
	}
	if w.held < int64(w.n) {
		t.Errorf("%d bytes answered while the budget held %d: the answer is not under its share", w.n, w.held)
	}
	if n := s.budget.held(); n != 0 {
		t.Errorf("%d bytes of the budget held after the answer", n)
	}
}

// TestXZDictionaryBound: the xz decoder allocates the dictionary a
// section declares, for every request that reads from the section and
// outside the preview budget: a 13 KB package whose data section declares
// 64 MiB made a /raw of a five-byte object allocate 128 MiB. The server
// refuses dictionaries above maxXZDictionary (413).
func TestXZDictionaryBound(t *testing.T) {
	pk := packBytes(t, map[string]string{"big.bin": strings.Repeat("\x00", 80<<20), "a.txt": "hello"}, nil,
		pack.WithCompression(bpx.CompressNone), pack.WithSectionSize(128<<20))
	rd, err := bpx.NewReader(bytes.NewReader(pk), int64(len(pk)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := bpx.NewWriter(&out)
	w.SetType(rd.Header.Type)
	w.SetTypeExt(rd.Header.TypeExt)
	for _, sec := range rd.Sections {
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		var o bpx.SectionOptions
		if sec.Type == pack.SectionData {
			o = bpx.SectionOptions{Compression: bpx.CompressXZ, XZDictSize: 64 << 20}
		}
		if err := w.WriteSection(sec.Type, o, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("game.bpx", out.Bytes())})
	for _, u := range []string{"/raw/a.txt", "/api/preview?path=big.bin"} {
		code, a := serveAllocated(s, u)
		t.Logf("%s: status %d, allocated %d bytes", u, code, a)
		if a > 16<<20 {
			t.Errorf("%s: allocated %d bytes for a dictionary of 64 MiB", u, a)
		}
	}
	if code, _ := serveAllocated(s, "/raw/a.txt"); code != http.StatusRequestEntityTooLarge {
		t.Errorf("/raw/a.txt: status %d, want 413", code)
	}
}

// TestSDRawTakesBudget (issue 23, finding 3): a BPXSD file decodes
// under the preview budget like a package's metadata does: while
// previews hold the whole budget, a request that goes away returns
// without decoding, from /api/sd and from /api/preview.
func TestSDRawTakesBudget(t *testing.T) {
	obj := testbpx.WorstBPXSD(256<<10, false)
	if _, err := sd.Decode(obj); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("game.bpx", packBytes(t, map[string]string{"worst.sd": string(obj)}, nil))})
	if rec := get(t, s, "/api/sd?path=worst.sd&typed=1"); rec.Code != 200 {
		t.Fatalf("status %d: %.200s", rec.Code, rec.Body)
	}
	holdBudget(t, s)
	for _, u := range []string{"/api/sd?path=worst.sd&typed=1", "/api/sd?path=worst.sd", "/api/preview?path=worst.sd"} {
		if rec := serveGone(t, s, u); rec.Body.Len() != 0 {
			t.Errorf("%s: decoded without the budget: %.100q", u, rec.Body)
		}
	}
	s.budget.release(MaxPreviewBytes)
	if n := s.budget.held(); n != 0 {
		t.Errorf("%d bytes of the budget still held", n)
	}
}

// noiseTexture is a w×h RGBA texture of random pixels, stored raw: its
// PNG is as large as its pixels.
func noiseTexture(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	tex, err := texture.FromImage(img, texture.FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	return encodeTexture(t, tex, bpx.SectionOptions{})
}

// stall sends a request for target on a connection that then never reads
// its answer; the connection is closed when the test ends.
func stall(t *testing.T, addr, target string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	// A fixed receive buffer (no autotuning) that keeps loopback fast
	// once read: with the server's send buffer (4 MiB at most), far less
	// than the answers.
	c.(*net.TCPConn).SetReadBuffer(256 << 10)
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write([]byte("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFor polls cond until it holds, failing after a generous minute (a
// bound on a hang, not a timing).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// TestSlowClients (issue 23, finding 6): clients that never read their
// answers hold no more of the preview budget than their answers, so
// other previews go on; and they are dropped when a write makes no
// progress within writeIdle, which gives back what they held.
func TestSlowClients(t *testing.T) {
	old := writeIdle
	writeIdle = 10 * time.Minute // the stalled clients stay for the whole test
	defer func() { writeIdle = old }()
	tex := noiseTexture(t, 2048, 2048) // a PNG of 16 MiB, more than socket buffers hold
	s := newServer(t, []File{file("tex.bpx", tex)})
	srv := httptest.NewServer(s)
	defer srv.Close()
	const target = "/api/texture.png?file=0"
	pngLen := int64(len(get(t, s, target).Body.Bytes()))
	addr := srv.Listener.Addr().String()
	for range 3 {
		defer stall(t, addr, target).Close() // before srv.Close
	}
	waitFor(t, "the stalled answers to be written", func() bool { return s.budget.held() >= 3*pngLen })
	cl := &http.Client{Timeout: time.Minute}
	for _, u := range []string{target, "/api/container?file=0", "/api/verify?file=0&section=0"} {
		res, err := cl.Get(srv.URL + u)
		if err != nil {
			t.Fatalf("%s beside stalled clients: %v", u, err)
		}
		n, _ := bufio.NewReader(res.Body).WriteTo(new(bytes.Buffer))
		res.Body.Close()
		if res.StatusCode != 200 || n == 0 {
			t.Errorf("%s beside stalled clients: status %d, %d bytes", u, res.StatusCode, n)
		}
	}
}

// TestWriteDeadline: a client that stops reading is dropped once a write
// has made no progress for writeIdle, and what its answer held of the
// budget comes back.
func TestWriteDeadline(t *testing.T) {
	old := writeIdle
	writeIdle = time.Second
	defer func() { writeIdle = old }()
	s := newServer(t, []File{file("tex.bpx", noiseTexture(t, 2048, 2048))})
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := stall(t, srv.Listener.Addr().String(), "/api/texture.png?file=0")
	defer c.Close() // before srv.Close
	waitFor(t, "the answer to be written", func() bool { return s.budget.held() > 0 })
	waitFor(t, "the stalled client to be dropped", func() bool { return s.budget.held() == 0 })
	c.SetReadDeadline(time.Now().Add(time.Minute))
	n, err := bufio.NewReader(c).WriteTo(new(bytes.Buffer))
	if err == nil && n >= 16<<20 {
		t.Errorf("the whole answer (%d bytes) came through after the deadline", n)
	}
}

// TestNestedSectionsLimit: a BPX file inside the tree with more than
// maxNestedSections sections, whose table each request would parse, is
// not opened as a container.
func TestNestedSectionsLimit(t *testing.T) {
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	for range 4 * maxNestedSections { // a table of 20 MiB parsed
		if err := w.WriteSection(0x10, bpx.SectionOptions{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("game.bpx", packBytes(t, map[string]string{"many.bpx": buf.String()}, nil))})
	a := allocated(func() { wantError(t, s, "/api/container?path=many.bpx", 413, "limit") })
	if a > 4<<20 {
		t.Errorf("allocated %d bytes", a)
	}
}
