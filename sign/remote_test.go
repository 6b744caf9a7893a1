package sign_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// TestRemoteReadsLittle: a signed package on an HTTP server opens with
// trusted keys and gives one small object after reading the header, the
// tables, the signature section and the chunk of the object: a small part
// of the file.
func TestRemoteReadsLittle(t *testing.T) {
	files := fstest.MapFS{
		"big.bin":   {Data: randomBytes(9, 4<<20)},
		"small.txt": {Data: []byte("a small file\n")},
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressNone))
	if err := w.AddFS(files); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	k := testKey(t, "k")
	signed := signBytes(t, buf.Bytes(), k)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "mod.bpx", time.Unix(1e9, 0), bytes.NewReader(signed))
	}))
	defer srv.Close()

	f, err := remote.Open(context.Background(), srv.URL+"/mod.bpx", remote.WithHeadSize(4<<10), remote.WithBlockSize(16<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vf, err := sign.Open(f, f.Size(), ring(k))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pack.NewReader(vf, vf.Size())
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.ReadFile("small.txt")
	if err != nil || string(got) != "a small file\n" {
		t.Fatalf("small.txt: %q, %v", got, err)
	}
	st := f.Stats()
	t.Logf("%d requests, %d bytes of a %d-byte file", st.Requests, st.Bytes, len(signed))
	if st.Bytes > 256<<10 {
		t.Fatalf("%d bytes read of a %d-byte file for one small object", st.Bytes, len(signed))
	}
}
