package pack

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx/remote"
)

// mediaTree is n files of 4 KiB that compress to about half, as game
// assets do (or less).
func mediaTree(n int) fstest.MapFS {
	rnd := rand.New(rand.NewPCG(11, 12))
	m := fstest.MapFS{}
	for i := range n {
		b := make([]byte, 4<<10)
		for j := range b {
			b[j] = byte(rnd.IntN(16)) + 'a'
		}
		m[fmt.Sprintf("media/%04d.bin", i)] = &fstest.MapFile{Data: b}
	}
	return m
}

// TestRemoteOneObjectFetchesPrefix: issue 31 item 10. Reading one object
// at the start of a 1 MiB section over HTTP fetches the stored bytes up to
// it (and a little more), not the whole section.
func TestRemoteOneObjectFetchesPrefix(t *testing.T) {
	m := mediaTree(400)
	b := pkgBytes(t, m)
	srv := newCountingServer(t, b)
	f, err := remote.Open(context.Background(), srv.URL, remote.WithHeadSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := NewReader(f, f.Size())
	if err != nil {
		t.Fatal(err)
	}
	first := p.Objects()[0]
	s := p.Reader.Sections[first.Start]
	if first.Offset != 0 || s.StoredSize() < 512<<10 {
		t.Fatalf("first object at %d of a section of %d stored bytes", first.Offset, s.StoredSize())
	}
	before, _ := srv.served()
	got, err := fs.ReadFile(p, first.Name)
	if err != nil || !bytes.Equal(got, m[first.Name].Data) {
		t.Fatalf("read: %v", err)
	}
	after, ranges := srv.served()
	t.Logf("fetched %d bytes (%v) of a section of %d stored bytes", after-before, ranges, s.StoredSize())
	if n := after - before; n > 256<<10 {
		t.Fatalf("fetched %d bytes (%v) for a %d-byte object at the start of a section of %d stored bytes", n, ranges, first.Size, s.StoredSize())
	}
}

// TestRemoteRereadVerified: issue 31 item 2 over HTTP. A server (or a
// proxy) that serves good bytes first and others later, under the same
// validator, cannot make a read of an object again return the others.
func TestRemoteRereadVerified(t *testing.T) {
	m, _ := sourceTree(400)
	for _, c := range compressions {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			good := pkgBytes(t, m, WithCompression(c), WithSectionSize(16<<10))
			srv := newCountingServer(t, good)
			f, err := remote.Open(context.Background(), srv.URL, remote.WithCacheSize(256<<10), remote.WithHeadSize(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := NewReader(f, f.Size(), WithCacheSize(128<<10))
			if err != nil {
				t.Fatal(err)
			}
			first := p.Objects()[0]
			if _, err := fs.ReadFile(p, first.Name); err != nil {
				t.Fatal(err)
			}
			s := p.Reader.Sections[first.Start]
			bad := bytes.Clone(good)
			at := s.Pointer + uint64(first.Offset)
			if s.Compressed() {
				at = s.Pointer + uint64(s.StoredSize())/2
			}
			bad[at] ^= 0x20
			srv.mu.Lock()
			srv.b = bad
			srv.mu.Unlock()
			for _, o := range p.Objects()[1:] { // evict, here and in f
				if _, err := fs.ReadFile(p, o.Name); err != nil {
					t.Fatal(err)
				}
			}
			got, err := fs.ReadFile(p, first.Name)
			if err == nil && !bytes.Equal(got, m[first.Name].Data) {
				t.Fatalf("read again: wrong bytes, nil error")
			}
		})
	}
}
