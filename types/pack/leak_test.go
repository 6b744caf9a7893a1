package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/leakcheck"
)

// TestNoGoroutineLeft writes a package, opens it (the strings load on
// another goroutine), reads it, verifies it and unpacks it (a pool of
// workers), also into a directory where unpacking fails, and checks that
// every goroutine the package started has ended when the calls return.
func TestNoGoroutineLeft(t *testing.T) {
	leakcheck.Check(t)
	tree := testTree()
	for _, c := range []bpx.Compression{bpx.CompressNone, bpx.CompressZlib, bpx.CompressXZ} {
		b := pkgBytes(t, tree, WithCompression(c), WithSectionSize(64<<10))
		p := openBytes(t, b)
		for _, o := range p.Objects() {
			if _, err := p.ReadFile(o.Name); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Verify(); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := p.Unpack(dir, WithUnpackConcurrency(3)); err != nil {
			t.Fatal(err)
		}
		// A second unpack without Overwrite over a file changed since
		// fails on it, and leaves it.
		changed := []byte("changed since")
		if err := os.WriteFile(filepath.Join(dir, "dir", "a.txt"), changed, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := p.Unpack(dir, WithUnpackConcurrency(3)); !errors.Is(err, os.ErrExist) {
			t.Fatalf("second Unpack = %v, want ErrExist", err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, "dir", "a.txt")); err != nil || !bytes.Equal(got, changed) {
			t.Fatalf("dir/a.txt: %v", err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
