package explorer

import (
	"testing"
)

// TestFilesTree: two packages, a texture (a BPX file of another type) and
// a junk file are one tree of four entries; /api/files says what each
// is, and the junk's error; the page works around it.
func TestFilesTree(t *testing.T) {
	a := packBytes(t, map[string]string{"x.txt": "hello"}, nil)
	b := packBytes(t, map[string]string{"d/y.png": "png?"}, nil)
	tex := textureBytes(t)
	s := newServer(t, []File{file("dir/a.bpx", a), file("b.bpx", b), file("t.bpx", tex), file("junk.bin", []byte("not bpx"))})
	got := jsonOf(t, s, "/api/files")
	want := `{"layered":false,"treeError":"","files":[` +
		`{"id":0,"name":"dir/a.bpx","label":"a.bpx","size":` + itoa(len(a)) + `,"type":"P","typeName":"package","version":2,"package":true,"mount":"a.bpx","error":""},` +
		`{"id":1,"name":"b.bpx","label":"b.bpx","size":` + itoa(len(b)) + `,"type":"P","typeName":"package","version":2,"package":true,"mount":"b.bpx","error":""},` +
		`{"id":2,"name":"t.bpx","label":"t.bpx","size":` + itoa(len(tex)) + `,"type":"T","typeName":"texture","version":2,"package":false,"mount":"t.bpx","error":""},` +
		`{"id":3,"name":"junk.bin","label":"junk.bin","size":7,"type":null,"typeName":"","version":0,"package":false,"mount":"junk.bin","error":"` + s.files[3].err.Error() + `"}]}`
	if got != want {
		t.Errorf("files:\n got %s\nwant %s", got, want)
	}
	if s.files[3].err == nil {
		t.Fatal("junk opened")
	}
	got = jsonOf(t, s, "/api/list")
	want = `{"dir":"","offset":0,"limit":500,"total":4,"next":4,"entries":[` +
		`{"name":"a.bpx","path":"a.bpx","dir":true,"size":0,"kind":"dir"},` +
		`{"name":"b.bpx","path":"b.bpx","dir":true,"size":0,"kind":"dir"},` +
		`{"name":"junk.bin","path":"junk.bin","dir":false,"size":7,"kind":"file"},` +
		`{"name":"t.bpx","path":"t.bpx","dir":false,"size":` + itoa(len(tex)) + `,"kind":"bpx"}]}`
	if got != want {
		t.Errorf("list:\n got %s\nwant %s", got, want)
	}
	if got := get(t, s, "/raw/a.bpx/x.txt").Body.String(); got != "hello" {
		t.Errorf("raw a.bpx/x.txt = %q", got)
	}
	if got := get(t, s, "/raw/junk.bin").Body.String(); got != "not bpx" {
		t.Errorf("raw junk.bin = %q", got)
	}
	wantError(t, s, "/api/container?path=junk.bin", 422, "")
	wantError(t, s, "/api/container?file=3", 422, "")
	wantError(t, s, "/api/invalid?file=2", 400, "not a package")
	wantError(t, s, "/api/invalid?file=3", 422, "")
}

// TestFilesOnePackage: one package is the tree's root.
func TestFilesOnePackage(t *testing.T) {
	a := packBytes(t, map[string]string{"x.txt": "hello"}, nil)
	s := newServer(t, []File{file("a.bpx", a)})
	var out filesAnswer
	getJSON(t, s, "/api/files", 200, &out)
	if len(out.Files) != 1 || out.Files[0].Mount == nil || *out.Files[0].Mount != "" || out.Layered {
		t.Errorf("files: %+v", out)
	}
	if got := get(t, s, "/raw/x.txt").Body.String(); got != "hello" {
		t.Errorf("raw x.txt = %q", got)
	}
}

// TestFilesLayers: a stack shows the mod over the base; each layer's
// mount is null. A bad layer empties the tree and says why.
func TestFilesLayers(t *testing.T) {
	base := packBytes(t, map[string]string{"a.txt": "base a", "b.txt": "base b"}, nil)
	mod := packBytes(t, map[string]string{"a.txt": "mod a", "c/d.txt": "mod d"}, nil)
	s := newServer(t, []File{file("base.bpx", base), file("mod.bpx", mod)}, WithLayers())
	got := jsonOf(t, s, "/api/files")
	want := `{"layered":true,"treeError":"","files":[` +
		`{"id":0,"name":"base.bpx","label":"base.bpx","size":` + itoa(len(base)) + `,"type":"P","typeName":"package","version":2,"package":true,"mount":null,"error":""},` +
		`{"id":1,"name":"mod.bpx","label":"mod.bpx","size":` + itoa(len(mod)) + `,"type":"P","typeName":"package","version":2,"package":true,"mount":null,"error":""}]}`
	if got != want {
		t.Errorf("files:\n got %s\nwant %s", got, want)
	}
	if got := get(t, s, "/raw/a.txt").Body.String(); got != "mod a" {
		t.Errorf("a.txt = %q", got)
	}
	if got := get(t, s, "/raw/b.txt").Body.String(); got != "base b" {
		t.Errorf("b.txt = %q", got)
	}
	var l listAnswer
	getJSON(t, s, "/api/list?dir=.", 200, &l)
	if l.Total != 3 || l.Entries[0].Path != "c" || !l.Entries[0].Dir || l.Entries[1].Path != "a.txt" || l.Entries[1].Size != 5 {
		t.Errorf("list: %+v", l)
	}

	bad := newServer(t, []File{file("base.bpx", base), file("bad.bpx", base[:40])}, WithLayers())
	var out filesAnswer
	getJSON(t, bad, "/api/files", 200, &out)
	if out.TreeError == "" || out.Files[1].Error == "" || out.Files[1].Package {
		t.Errorf("bad layer: %+v", out)
	}
	getJSON(t, bad, "/api/list", 200, &l)
	if l.Total != 0 {
		t.Errorf("bad stack lists %+v", l)
	}
	wantError(t, bad, "/raw/a.txt", 404, "")
	if got := jsonOf(t, bad, "/api/container?file=0"); got == "" {
		t.Error("container of the good layer")
	}
}
