package sign_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// testPackage writes a package of a few files, some compressible, one
// larger than a chunk, with the package writer.
func testPackage(t testing.TB, opts ...pack.WriterOption) ([]byte, fstest.MapFS) {
	t.Helper()
	files := fstest.MapFS{
		"textures/stone.png": {Data: randomBytes(7, 300<<10)},
		"scripts/main.lua":   {Data: []byte("print('hi')\n")},
		"shaders/basic.glsl": {Data: bytes.Repeat([]byte("void main(){}\n"), 5000)},
		"empty":              {Data: nil},
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, opts...)
	if err := w.AddFS(files); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), files
}

// checkPackage opens the package in r and checks that it holds files.
func checkPackage(t *testing.T, what string, r io.ReaderAt, size int64, files fstest.MapFS) *pack.Package {
	t.Helper()
	p, err := pack.NewReader(r, size)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := p.Verify(); err != nil {
		t.Fatalf("%s: Verify: %v", what, err)
	}
	if len(p.Objects()) != len(files) {
		t.Fatalf("%s: %d objects, want %d", what, len(p.Objects()), len(files))
	}
	for name, f := range files {
		got, err := p.ReadFile(name)
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Fatalf("%s: %s: %v", what, name, err)
		}
	}
	return p
}

// TestSignedPackage: a signed package reads the same without package sign
// (the package and container readers skip the signature section), through
// a Verified, and section by section as bpx verify reads it.
func TestSignedPackage(t *testing.T) {
	for _, c := range []bpx.Compression{bpx.CompressNone, bpx.CompressXZ} {
		t.Run(c.String(), func(t *testing.T) {
			orig, files := testPackage(t, pack.WithCompression(c))
			k := testKey(t, "modder")
			signed := signBytes(t, orig, k)
			up := checkPackage(t, "unsigned", bytes.NewReader(orig), int64(len(orig)), files)
			sp := checkPackage(t, "signed, read without sign", bytes.NewReader(signed), int64(len(signed)), files)
			v, err := open(signed, ring(k))
			if err != nil {
				t.Fatal(err)
			}
			vp := checkPackage(t, "verified", v, v.Size(), files)
			for i, o := range up.Objects() {
				for _, p := range []*pack.Package{sp, vp} {
					if q := p.Objects()[i]; q.Name != o.Name || q.Size != o.Size || q.Start != o.Start || q.Offset != o.Offset {
						t.Fatalf("object %d: %+v, unsigned %+v", i, q, o)
					}
				}
			}
			ud, err := up.DeadBytes()
			if err != nil {
				t.Fatal(err)
			}
			if sd, err := sp.DeadBytes(); err != nil || sd != ud {
				t.Fatalf("dead bytes %d (%v), unsigned %d", sd, err, ud)
			}
			// bpx verify: every section read to its end, checksums checked.
			for _, r := range []io.ReaderAt{bytes.NewReader(signed), v} {
				rd, err := bpx.NewReader(r, int64(len(signed)))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range rd.Sections {
					rc, err := s.Open()
					if err != nil {
						t.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, rc); err != nil {
						t.Fatalf("section %d: %v", s.Index, err)
					}
					rc.Close()
				}
			}
			if err := v.VerifyAll(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReferenceSectionLimit: Sign adds exactly one section, whatever the
// count (the package writers keep one free under the reference SDK's
// limit, bpx.ReferenceMaxSections).
func TestReferenceSectionLimit(t *testing.T) {
	k := testKey(t, "k")
	for _, n := range []int{bpx.ReferenceMaxSections - 1, bpx.ReferenceMaxSections, bpx.ReferenceMaxSections + 1} {
		var buf bytes.Buffer
		w := bpx.NewWriter(&buf)
		for i := range n {
			if err := w.WriteSection(0x42, bpx.SectionOptions{}, []byte(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := sign.Sign(&out, bytes.NewReader(buf.Bytes()), int64(buf.Len()), k); err != nil {
			t.Fatalf("%d sections: %v", n, err)
		}
		rd, err := bpx.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if len(rd.Sections) != n+1 {
			t.Fatalf("%d sections signed: %d", n, len(rd.Sections))
		}
	}
}
