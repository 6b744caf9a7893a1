package pack

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// errStop is the cause the context tests cancel with.
var errStop = errors.New("stop requested")

// bigTree holds one incompressible file of n bytes, "big".
func bigTree(n int) fstest.MapFS {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{24, 2}).Read(b)
	return fstest.MapFS{"big": {Data: b}}
}

// cancellingFS is an fs.FS whose files cancel a context once n bytes
// have been read from them; seen records whether the directory tmp held
// temporary files at that moment.
type cancellingFS struct {
	fs.FS
	ctx    context.Context
	cancel context.CancelCauseFunc
	n      int64
	tmp    string
	seen   bool
}

// newCancellingFS returns a cancellingFS of fsys and the options of a
// Writer that its context stops, with the temporary files in tmp.
func newCancellingFS(fsys fs.FS, n int64, tmp string) (*cancellingFS, []WriterOption) {
	c := &cancellingFS{FS: fsys, n: n, tmp: tmp}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	return c, []WriterOption{WithContext(c.ctx), WithTempDir(tmp), WithMemoryLimit(0), WithSectionSize(64 << 10)}
}

func (c *cancellingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil || name == "." {
		return f, err
	}
	return &cancellingFile{f, c}, nil
}

type cancellingFile struct {
	fs.File
	c *cancellingFS
}

func (f *cancellingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if c := f.c; n > 0 && c.ctx.Err() == nil {
		if c.n -= int64(n); c.n <= 0 {
			ents, _ := os.ReadDir(c.tmp)
			c.seen = len(ents) > 0
			c.cancel(errStop)
		}
	}
	return n, err
}

// TestWriterContext: cancelling the context of WithContext while AddFS
// copies a file makes AddFS and Close fail with the cause, write nothing
// and remove the temporary files.
func TestWriterContext(t *testing.T) {
	tmp := t.TempDir()
	fsys, opts := newCancellingFS(bigTree(4<<20), 1<<20, tmp)
	var out bytes.Buffer
	w := NewWriter(&out, opts...)
	if err := w.AddFS(fsys); !errors.Is(err, errStop) {
		t.Errorf("AddFS = %v, want the cause", err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close of a stopped Writer succeeded")
	}
	if !fsys.seen {
		t.Error("no temporary file when the context was cancelled: the test proves nothing")
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes written", out.Len())
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// cancelOnWrite cancels its context at the first write and counts the
// writes that reach w.
type cancelOnWrite struct {
	w      io.Writer
	cancel context.CancelCauseFunc
	writes int
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.writes++
	c.cancel(errStop)
	return c.w.Write(p)
}

// TestEditFileContext: an edit whose context is cancelled, while it adds
// a file, before it starts or while it writes the edited package, fails
// with the cause and leaves the package byte-identical and no temporary
// file, beside it or in the temporary directory.
func TestEditFileContext(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	name := filepath.Join(dir, "base.bpx")
	// More than the 64 KiB the root writer buffers, so that writing it
	// takes several writes.
	tree := editTree()
	tree["big"] = bigTree(1 << 20)["big"]
	orig := pkgBytes(t, tree, WithSectionSize(64<<10), WithCompression(bpx.CompressNone))
	if err := os.WriteFile(name, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, errStop) {
			t.Errorf("%s: err = %v, want the cause", what, err)
		}
		if got, _ := os.ReadFile(name); !bytes.Equal(got, orig) {
			t.Errorf("%s changed the package", what)
		}
		if left := entries(t, dir); len(left) != 1 {
			t.Errorf("%s left files beside the package: %v", what, left)
		}
		if left := entries(t, tmp); len(left) != 0 {
			t.Errorf("%s left temporary files: %v", what, left)
		}
	}

	big, opts := newCancellingFS(bigTree(4<<20), 1<<20, tmp)
	check("cancelled while adding", EditFile(name, func(e *Editor) error { return e.AddFS(big) }, opts...))
	if !big.seen {
		t.Error("no temporary file when the add was cancelled: the test proves nothing")
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	repack := func(e *Editor) error { e.Recompress(); return nil }
	check("cancelled before", EditFile(name, repack, WithContext(ctx), WithTempDir(tmp), WithCompression(bpx.CompressNone)))

	ctx, cancel = context.WithCancelCause(context.Background())
	var cw *cancelOnWrite
	wrap := func(w io.Writer) io.Writer { cw = &cancelOnWrite{w: w, cancel: cancel}; return cw }
	check("cancelled while writing", editFile(name, name, repack, wrap, []WriterOption{WithContext(ctx), WithTempDir(tmp), WithCompression(bpx.CompressNone)}))
	if cw == nil || cw.writes != 1 {
		t.Errorf("writes after the cancellation reached the file: %+v", cw)
	}
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
