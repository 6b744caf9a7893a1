package pack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/remote"
	"github.com/gobpx/bpx/sign"
)

// countingServer serves b on 127.0.0.1 with http.ServeContent and counts
// the body bytes it sends and the ranges asked for.
type countingServer struct {
	*httptest.Server
	mu     sync.Mutex
	b      []byte
	bytes  int
	ranges []string
}

func newCountingServer(t *testing.T, b []byte) *countingServer {
	s := &countingServer{b: b}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		data := s.b
		s.mu.Unlock()
		w.Header().Set("ETag", `"signed"`)
		http.ServeContent(countingWriter{w, s}, r, "", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(s.Close)
	return s
}

// served returns the bytes sent so far and the ranges asked for.
func (s *countingServer) served() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes, append([]string(nil), s.ranges...)
}

type countingWriter struct {
	http.ResponseWriter
	s *countingServer
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.s.mu.Lock()
	c.s.bytes += n
	c.s.mu.Unlock()
	return n, err
}

// TestSignedRemote: a signed package on an HTTP server opens over
// remote.Open WithTrustedKeys and reads one object while the server sends
// only the head, the chunks of the tables, the signature section and the
// chunks around the object's section, not the whole file; a changed byte
// in the object on the server fails its read.
func TestSignedRemote(t *testing.T) {
	k := testKey(t, 1, "k")
	rnd := rand.New(rand.NewChaCha8([32]byte{25, 7}))
	tree := fstest.MapFS{}
	for i := range 40 {
		b := make([]byte, 64<<10)
		for j := range b {
			b[j] = byte(rnd.Uint32())
		}
		tree[fmt.Sprintf("obj%02d", i)] = &fstest.MapFile{Data: b}
	}
	const sec = 256 << 10
	signed := pkgBytes(t, tree, WithSigningKey(k), WithCompression(bpx.CompressNone), WithSectionSize(sec))

	// What a reader must fetch: the head, the first chunk (the tables),
	// the signature section and the chunks the object's section spans.
	local := openBytes(t, signed)
	const name, head, block = "obj21", 16 << 10, 4 << 10
	var obj *Object
	for i := range local.objects {
		if local.objects[i].Name == name {
			obj = &local.objects[i]
		}
	}
	segs, err := local.segments(obj)
	if err != nil || len(segs) != 1 {
		t.Fatalf("%s spans %d sections: %v", name, len(segs), err)
	}
	sigSec := local.Reader.Sections[len(local.Reader.Sections)-1]
	dataSec := local.Reader.Sections[segs[0].sec]
	bound := head + sign.ChunkSize + int(sigSec.StoredSize()) + int(dataSec.StoredSize()) + 2*sign.ChunkSize + 4*block

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang
	defer cancel()
	// openServed serves b and opens it over HTTP with k trusted.
	openServed := func(b []byte) (*countingServer, *Package) {
		srv := newCountingServer(t, b)
		f, err := remote.Open(ctx, srv.URL+"/p.bpx", remote.WithHeadSize(head), remote.WithBlockSize(block))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		p, err := NewReader(f, f.Size(), WithTrustedKeys(ring(k)))
		if err != nil {
			t.Fatal(err)
		}
		return srv, p
	}
	srv, p := openServed(signed)
	checkSigners(t, p, k)
	got, err := fs.ReadFile(p, name)
	if err != nil || !bytes.Equal(got, tree[name].Data) {
		t.Fatalf("%s: %v", name, err)
	}
	n, ranges := srv.served()
	t.Logf("served %d of %d bytes (%.2f), bound %d: %v", n, len(signed), float64(n)/float64(len(signed)), bound, ranges)
	if n > bound {
		t.Errorf("served %d bytes to read one object, more than the %d of the tables, the signature and its section (file %d)", n, bound, len(signed))
	}

	// The same object changed on the server: its read fails.
	bad := bytes.Clone(signed)
	i := bytes.Index(bad, tree[name].Data)
	bad[i+1000] ^= 1
	_, p2 := openServed(bad)
	if got, err := fs.ReadFile(p2, name); !errors.Is(err, sign.ErrTampered) || len(got) != 0 {
		t.Errorf("changed %s over HTTP: %d bytes, %v", name, len(got), err)
	}
}
