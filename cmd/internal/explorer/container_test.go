package explorer

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/describe"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// metaPackage is a package with metadata, a zlib data section and a
// texture object (a BPX file inside it).
func metaPackage(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressZlib), pack.WithChecksum(bpx.ChecksumCRC32))
	for _, o := range []struct{ name, data string }{
		{"a.txt", strings.Repeat("compressible ", 200)},
		{"tex.bpx", string(textureBytes(t))},
	} {
		ow, err := w.Create(o.name)
		if err != nil {
			t.Fatal(err)
		}
		ow.Write([]byte(o.data))
	}
	if err := w.SetMetadataValue(struct {
		Name string `sd:"name"`
	}{"m"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestContainer: the container view of a package (file=N) and of a
// texture inside it (path=P), every field.
func TestContainer(t *testing.T) {
	b := metaPackage(t)
	s := newServer(t, []File{file("m.bpx", b)})
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[uint8]string{pack.SectionData: "data", pack.SectionObjectTable: "object table", pack.SectionStrings: "strings", pack.SectionMetadata: "metadata", pack.SectionDigests: "object digests"}
	views := map[uint8]string{pack.SectionData: "hex", pack.SectionObjectTable: "hex", pack.SectionStrings: "strings", pack.SectionMetadata: "sd", pack.SectionDigests: "hex"}
	var secs []string
	for _, sec := range rd.Sections {
		if names[sec.Type] == "" {
			t.Fatalf("unexpected section type %#x", sec.Type)
		}
		secs = append(secs, fmt.Sprintf(`{"index":%d,"type":%d,"typeName":%q,"flags":%d,"flagNames":%q,"pointer":%d,"csize":%d,"usize":%d,"checksum":%d,"view":%q}`,
			sec.Index, sec.Type, names[sec.Type], sec.Flags, describe.FlagNames(sec.Flags), sec.Pointer, sec.CSize, sec.USize, sec.Checksum, views[sec.Type]))
	}
	h := rd.Header
	want := fmt.Sprintf(`{"name":"m.bpx","size":%d,"type":"P","typeName":"package","version":2,"checksum":%d,"fileSize":%d,"typeExt":%q,"typeExtText":%q,"sections":[%s],"sectionCount":%d,"sectionsNext":%[7]d,"objects":2,"deadBytes":0,"signature":{"signed":false,"matches":false,"summary":"none"}}`,
		len(b), h.Checksum, h.FileSize, hex.EncodeToString(h.TypeExt[:]), describe.TypeExt('P', h.TypeExt), strings.Join(secs, ","), len(rd.Sections))
	if got := jsonOf(t, s, "/api/container?file=0"); got != want {
		t.Errorf("container:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(want, `"typeExtText":"package: architecture `) || !strings.Contains(want, `"flagNames":"zlib,crc32"`) {
		t.Errorf("want lacks the TypeExt text or the flag names: %s", want)
	}
	var c containerAnswer
	getJSON(t, s, "/api/container?path=tex.bpx", 200, &c)
	if c.Name != "tex.bpx" || c.Type != "T" || c.TypeName != "texture" || c.Objects != nil || c.DeadBytes != nil ||
		len(c.Sections) != 1 || c.Sections[0].TypeName != "pixel array" || !strings.HasPrefix(c.TypeExtText, "texture") {
		t.Errorf("texture: %+v", c)
	}
	wantError(t, s, "/api/container?path=a.txt", 422, "")
	wantError(t, s, "/api/container?path=nope.bpx", 404, "")
	wantError(t, s, "/api/container?file=1", 404, "")
	wantError(t, s, "/api/container", 400, "file=N or path=P")
}

// TestVerifyAndSection: every section verifies; bytes of a compressed and
// of a raw section come back decompressed, cut by offset and length.
func TestVerifyAndSection(t *testing.T) {
	b := metaPackage(t)
	s := newServer(t, []File{file("m.bpx", b)})
	rd, _ := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	for _, sec := range rd.Sections {
		got := jsonOf(t, s, fmt.Sprintf("/api/verify?file=0&section=%d", sec.Index))
		if want := fmt.Sprintf(`{"section":%d,"ok":true}`, sec.Index); got != want {
			t.Errorf("verify: %s, want %s", got, want)
		}
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct{ off, n int }{{0, 4096}, {3, 10}, {len(data) - 2, 100}, {len(data) + 5, 10}} {
			rec := get(t, s, fmt.Sprintf("/api/section?file=0&section=%d&offset=%d&length=%d", sec.Index, q.off, q.n))
			lo := min(q.off, len(data))
			want := data[lo:min(lo+q.n, len(data))]
			if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), want) || rec.Header().Get("X-Section-Size") != itoa(len(data)) ||
				rec.Header().Get("Content-Type") != "application/octet-stream" {
				t.Errorf("section %d [%d,+%d): %d, %d bytes, want %d; %v", sec.Index, q.off, q.n, rec.Code, rec.Body.Len(), len(want), rec.Header())
			}
		}
	}
	if rec := get(t, s, "/api/section?path=tex.bpx&section=0"); rec.Code != 200 || rec.Body.Len() != 4*2*4 {
		t.Errorf("texture section: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	wantError(t, s, "/api/verify?file=0&section=99", 404, "section 99")
	wantError(t, s, "/api/verify?file=0&section=-1", 404, "section")
	wantError(t, s, "/api/verify?file=0&section=x", 400, "section")
	wantError(t, s, "/api/section?file=0&section=0&length=1048577", 400, "length")
	wantError(t, s, "/api/section?file=0&section=0&offset=-1", 400, "offset")
	if rec := get(t, s, "/api/section?file=0&section=0&length=1048576"); rec.Code != 200 {
		t.Errorf("1 MiB: %d", rec.Code)
	}
}

// TestMalformed: a truncated package and a corrupted section are JSON
// errors (422) or failed verifications, never a crash.
func TestMalformed(t *testing.T) {
	b := metaPackage(t)
	rd, _ := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	data := rd.FindSection(pack.SectionData)
	bad := bytes.Clone(b)
	bad[data.Pointer+uint64(data.CSize)/2] ^= 0x55
	s := newServer(t, []File{file("bad.bpx", bad), file("trunc.bpx", b[:len(b)/2]), file("head.bpx", b[:100])})

	var v verifyAnswer
	getJSON(t, s, fmt.Sprintf("/api/verify?file=0&section=%d", data.Index), 200, &v)
	if v.OK || v.Error == "" || v.Section != data.Index {
		t.Errorf("verify of a corrupted section: %+v", v)
	}
	wantError(t, s, fmt.Sprintf("/api/section?file=0&section=%d&length=3000", data.Index), 422, "")
	wantError(t, s, "/raw/bad.bpx/a.txt", 422, "")
	wantError(t, s, "/api/object?file=0&index=0", 422, "")
	// A file cut before its section table is no container; one cut in
	// its sections is, but they do not verify and it is no package.
	wantError(t, s, "/api/container?file=2", 422, "")
	wantError(t, s, "/api/verify?file=2&section=0", 422, "")
	wantError(t, s, "/api/invalid?file=2", 422, "")
	wantError(t, s, "/api/invalid?file=1", 422, "")
	var c containerAnswer
	getJSON(t, s, "/api/container?file=1", 200, &c)
	if c.Objects != nil || len(c.Sections) != len(rd.Sections) {
		t.Errorf("truncated container: %+v", c)
	}
	getJSON(t, s, fmt.Sprintf("/api/verify?file=1&section=%d", data.Index), 200, &v)
	if v.OK || v.Error == "" {
		t.Errorf("verify of a truncated section: %+v", v)
	}
	wantError(t, s, fmt.Sprintf("/api/section?file=1&section=%d", data.Index), 422, "")
	var files filesAnswer
	getJSON(t, s, "/api/files", 200, &files)
	if files.Files[0].Error != "" || files.Files[1].Error == "" || files.Files[2].Error == "" {
		t.Errorf("files: %+v", files)
	}
	var l listAnswer
	getJSON(t, s, "/api/list", 200, &l)
	if l.Total != 3 || names(l) != "bad.bpx head.bpx trunc.bpx" {
		t.Errorf("list: %+v", l)
	}
}

// TestMethodAndHost: the server is read-only and answers localhost only.
func TestMethodAndHost(t *testing.T) {
	s := listTree(t)
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		rec := do(s, httptest.NewRequest(m, "/api/list", nil))
		if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: %d %v", m, rec.Code, rec.Header())
		}
	}
	req := httptest.NewRequest("GET", "/raw/B.txt", nil)
	req.Host = "evil.example"
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != 403 || strings.Contains(rec.Body.String(), "bb") {
		t.Errorf("evil host: %d %q", rec.Code, rec.Body)
	}
}

// TestContainerSignature: the container view says who signed a file and
// whether its signature verifies; the signature section is named.
func TestContainerSignature(t *testing.T) {
	b := metaPackage(t)
	k, err := sign.GenerateKey(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var signed bytes.Buffer
	if err := sign.Sign(&signed, bytes.NewReader(b), int64(len(b)), k); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("s.bpx", signed.Bytes())})
	var c containerAnswer
	getJSON(t, s, "/api/container?file=0", 200, &c)
	sig := c.Signature
	if sig == nil || !sig.Signed || !sig.Matches || len(sig.Keys) != 1 || sig.Keys[0].ID != k.Public().ID() || !sig.Keys[0].Valid ||
		!strings.HasPrefix(sig.Summary, "signed by "+k.Public().ID()) {
		t.Fatalf("signature: %+v", sig)
	}
	if last := c.Sections[len(c.Sections)-1]; last.Type != sign.SectionType || last.TypeName != "signature" {
		t.Errorf("the signature section: %+v", last)
	}
}
