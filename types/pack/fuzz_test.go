package pack

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/samples"
)

// FuzzPackage opens arbitrary bytes as a package with tight limits, reads
// every object through both APIs, walks the fs.FS, verifies, and re-packs
// whatever was readable: that must succeed and read back identically.
func FuzzPackage(f *testing.F) {
	f.Add(pkgBytes(f, testTree(), WithSectionSize(4096)))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: []byte("abc")}, "d/b": {Data: []byte("x")}}, WithCompression(bpx.CompressZlib), WithSectionSize(2)))
	f.Add(pkgBytes(f, fstest.MapFS{"a": {Data: bytes.Repeat([]byte("z"), 300)}}, WithCompression(bpx.CompressNone), WithSectionSize(100)))
	// Sections of xz blocks, read by block with a cache of 32 KiB.
	f.Add(pkgBytes(f, distinctText(12, 3000, 1), WithSectionSize(16<<10), WithBlockSize(4<<10)))
	f.Add(draftPackage(1, 2, []draftSection{{typ: 1, data: []byte{0, 0, 0, 0, 2, 0, 0, 0}}, {typ: 2, data: []byte("x")}, {typ: 3, data: []byte("n\x00")}}))
	if dir := samples.Root(); dir != "" {
		for _, sub := range []string{"real", "reference-generated", "synthetic"} {
			names, _ := filepath.Glob(filepath.Join(dir, "bpx", sub, "*pkg*.bpx"))
			real, _ := filepath.Glob(filepath.Join(dir, "bpx", sub, "*test*.bpx"))
			for _, n := range append(names, real...) {
				if b, err := os.ReadFile(n); err == nil {
					f.Add(b)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		open := func(opts ...Option) (*Package, error) {
			return NewReader(bytes.NewReader(b), int64(len(b)), append([]Option{WithMaxObjects(1000), WithCacheSize(16 << 20),
				WithReaderOptions(bpx.WithMaxSectionSize(4<<20), bpx.WithMaxXZDictionary(1<<20))}, opts...)...)
		}
		p, err := open()
		if err != nil {
			if !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
				t.Fatalf("open error matches no sentinel: %v", err)
			}
			return
		}
		checkSkipNames(t, p, open)
		if cleanNames(p.Objects(), 0) {
			if len(p.index().bad) != 0 {
				t.Fatalf("names pass the one-pass check, but the index finds %v", p.index().bad)
			}
			for _, o := range p.Objects() {
				fast, ok := p.lookupClean(o.Name)
				if slow, ok2 := p.index().lookup(o.Name); ok != ok2 || fast != slow {
					t.Fatalf("%q: binary search %+v %v, tree %+v %v", o.Name, fast, ok, slow, ok2)
				}
			}
		}
		for _, o := range p.Objects() {
			if !fs.ValidPath(o.Name) || o.Name == "." {
				continue
			}
			if i, ok := p.scanName(o.Name); ok {
				if e, found := p.index().lookup(o.Name); !found || e.obj != i {
					t.Fatalf("%q: scanName found object %d, the index %+v %v", o.Name, i, e, found)
				}
			}
		}
		for _, s := range p.Reader.Sections {
			if err := p.VerifySection(s.Index); err != nil && !errors.Is(err, bpx.ErrFormat) && !errors.Is(err, bpx.ErrChecksum) && !errors.Is(err, bpx.ErrTooLarge) && !errors.Is(err, bpx.ErrUnsupported) {
				t.Fatalf("VerifySection(%d): error matches no sentinel: %v", s.Index, err)
			}
		}
		good := fstest.MapFS{}
		for i, o := range p.Objects() {
			data, err := p.ReadObject(i)
			if err != nil {
				continue
			}
			if uint64(len(data)) != o.Size {
				t.Fatalf("object %d: %d bytes, size %d", i, len(data), o.Size)
			}
			if _, bad := p.InvalidPaths()[i]; !bad {
				good[o.Name] = &fstest.MapFile{Data: data}
				if fd, err := p.ReadFile(o.Name); err != nil || !bytes.Equal(fd, data) {
					t.Fatalf("ReadFile(%q) = %v, differs from ReadObject", o.Name, err)
				}
			}
		}
		// With a cache too small for any section, objects come from
		// sections streamed or read alone (issue 31), and with one that
		// holds blocks of 4 KiB but no section above 8 KiB, from blocks
		// (issue 33): the same bytes.
		for _, size := range []int64{4 << 10, 32 << 10} {
			small, err := open(WithCacheSize(size))
			if err != nil {
				continue
			}
			for i, o := range small.Objects() {
				data, err := small.ReadObject(i)
				if err != nil {
					continue
				}
				if want, ok := good[o.Name]; ok && !bytes.Equal(data, want.Data) {
					if _, bad := p.InvalidPaths()[i]; !bad {
						t.Fatalf("object %d: other bytes with a cache of %d bytes", i, size)
					}
				}
			}
			small.Close()
		}
		fs.WalkDir(p, ".", func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if f, err := p.Open(path); err == nil {
					io.Copy(io.Discard, f)
					f.Close()
				}
			}
			return nil
		})
		p.VerifyAll()
		p.Metadata()
		// Re-pack what was readable: it must round-trip.
		out := pkgBytes(t, good, WithCompression(bpx.CompressNone))
		q := openBytes(t, out)
		for name, f := range good {
			if got, err := q.ReadFile(name); err != nil || !bytes.Equal(got, f.Data) {
				t.Fatalf("re-packed %q: %v", name, err)
			}
		}
	})
}

// checkSkipNames checks that the package opened by open with SkipNames has
// the objects and dead bytes of p, without names.
func checkSkipNames(t *testing.T, p *Package, open func(...Option) (*Package, error)) {
	t.Helper()
	bare, err := open(SkipNames())
	if err != nil {
		t.Fatalf("opens, but not with SkipNames: %v", err)
	}
	defer bare.Close()
	if len(bare.Objects()) != len(p.Objects()) {
		t.Fatalf("%d objects with SkipNames, %d without", len(bare.Objects()), len(p.Objects()))
	}
	for i, o := range p.Objects() {
		o.Name, o.NameErr = "", nil
		if bare.Objects()[i] != o {
			t.Fatalf("object %d: %+v with SkipNames, %+v without", i, bare.Objects()[i], o)
		}
	}
	d1, err1 := p.DeadBytes()
	d2, err2 := bare.DeadBytes()
	if d1 != d2 || (err1 == nil) != (err2 == nil) {
		t.Fatalf("DeadBytes %d, %v with SkipNames; %d, %v without", d2, err2, d1, err1)
	}
}
