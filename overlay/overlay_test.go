package overlay_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

// files makes a MapFS of name -> content.
func files(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1]), Mode: 0o444}
	}
	return m
}

// packOf writes the files of m into a package that removes the names
// given, and opens it.
func packOf(t testing.TB, m fstest.MapFS, removed ...string) *pack.Package {
	t.Helper()
	return packWith(t, func(w *pack.Writer) error {
		if err := w.AddFS(m); err != nil || len(removed) == 0 {
			return err
		}
		return w.Remove(removed...)
	})
}

// packWith writes a package set up by setup and opens it.
func packWith(t testing.TB, setup func(*pack.Writer) error) *pack.Package {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressNone))
	if err := setup(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// packWithMeta writes an empty package with the metadata meta and opens it.
func packWithMeta(t testing.TB, meta *sd.Object) *pack.Package {
	t.Helper()
	return packWith(t, func(w *pack.Writer) error { return w.SetMetadata(meta) })
}

// dirFS writes m to a temporary directory and returns it as os.DirFS.
func dirFS(t *testing.T, m fstest.MapFS) fs.FS {
	dir := t.TempDir()
	for name, f := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return os.DirFS(dir)
}

var (
	baseFiles = files(
		"readme.txt", "base readme",
		"a/1.txt", "base a1",
		"a/2.txt", "base a2",
		"a/deep/x.txt", "base x",
		"b/file", "base b",
		"c", "base c is a file",
		"d/inner.txt", "base d/inner",
		"gone/1", "base gone/1",
		"gone/sub/2", "base gone/sub/2",
		"e/keep.txt", "base keep",
		"e/drop.txt", "base drop",
		"r/old.txt", "base r/old",
		"t/base.txt", "base t",
	)
	modFiles = files(
		"a/2.txt", "mod a2",
		"a/3.txt", "mod a3",
		"c/inside.txt", "mod c/inside",
		"d", "mod d is a file",
		"r/new.txt", "mod r/new",
		"modonly/m.txt", "mod m",
	)
	modRemoves = []string{"gone", "e/drop.txt", "r", "t", "nothere/x", "a/deep/nothere"}
	topFiles   = files(
		"a/1.txt", "top a1",
		"t/top.txt", "top t",
		"top.txt", "top",
	)
	// want is what the three layers show.
	want = files(
		"readme.txt", "base readme",
		"a/1.txt", "top a1",
		"a/2.txt", "mod a2",
		"a/3.txt", "mod a3",
		"a/deep/x.txt", "base x",
		"b/file", "base b",
		"c/inside.txt", "mod c/inside",
		"d", "mod d is a file",
		"e/keep.txt", "base keep",
		"r/new.txt", "mod r/new",
		"modonly/m.txt", "mod m",
		"t/top.txt", "top t",
		"top.txt", "top",
	)
)

// stack3 layers a base package, a mod package that removes modRemoves and
// top, which is a MapFS or an os.DirFS.
func stack3(t *testing.T, dir bool) *overlay.FS {
	t.Helper()
	var top fs.FS = topFiles
	if dir {
		top = dirFS(t, topFiles)
	}
	o, err := overlay.New(packOf(t, baseFiles), packOf(t, modFiles, modRemoves...), top)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// expectTree fails unless fsys holds exactly the files of m.
func expectTree(t *testing.T, fsys fs.FS, m fstest.MapFS) {
	t.Helper()
	var names []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, name)
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		if f, ok := m[name]; !ok || string(b) != string(f.Data) {
			t.Errorf("%s = %q, want %q", name, b, m[name])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var wantNames []string
	for n := range m {
		wantNames = append(wantNames, n)
	}
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Errorf("files\n%q\nwant\n%q", names, wantNames)
	}
}

func TestStack3(t *testing.T) {
	for _, dir := range []bool{false, true} {
		name := "MapFS"
		if dir {
			name = "DirFS"
		}
		t.Run(name, func(t *testing.T) {
			o := stack3(t, dir)
			var expected []string
			for n := range want {
				expected = append(expected, n)
			}
			slices.Sort(expected)
			if err := fstest.TestFS(o, expected...); err != nil {
				t.Fatal(err)
			}
			expectTree(t, o, want)
		})
	}
}

func TestReadDirMerged(t *testing.T) {
	o := stack3(t, false)
	for _, tc := range []struct {
		dir  string
		want string // names, dirs with a trailing slash
	}{
		{".", "a/ b/ c/ d e/ modonly/ r/ readme.txt t/ top.txt"},
		{"a", "1.txt 2.txt 3.txt deep/"},
		{"a/deep", "x.txt"},   // base only
		{"modonly", "m.txt"},  // mod only
		{"t", "top.txt"},      // top only, over a removal
		{"r", "new.txt"},      // removed and added again by the same layer
		{"c", "inside.txt"},   // a directory over a file
		{"e", "keep.txt"},     // a file removed from a base-only directory
		{"b", "file"},         // base only
		{"modonly/", "error"}, // invalid
		{"d", "error"},        // a file over a directory
		{"gone", "error"},     // removed
		{"nope", "error"},
	} {
		check := func(how string, ents []fs.DirEntry, err error) {
			var got []string
			for _, e := range ents {
				n := e.Name()
				if e.IsDir() {
					n += "/"
				}
				got = append(got, n)
			}
			s := strings.Join(got, " ")
			if err != nil {
				s = "error"
			}
			if s != tc.want {
				t.Errorf("%s(%q) = %q (%v), want %q", how, tc.dir, s, err, tc.want)
			}
		}
		ents, err := o.ReadDir(tc.dir)
		check("ReadDir", ents, err)
		if f, err := o.Open(tc.dir); err == nil {
			if d, ok := f.(fs.ReadDirFile); ok {
				ents, err = d.ReadDir(-1)
			} else {
				ents, err = nil, errors.New("not a ReadDirFile")
			}
			check("Open+ReadDir", ents, err)
			f.Close()
		} else {
			check("Open", nil, err)
		}
	}
}

// TestHiding covers the rules between files and directories of the same
// name, with a layer in between.
func TestHiding(t *testing.T) {
	o, err := overlay.New(
		files("x/below", "0", "y", "0 file", "z/in0", "0"),
		files("x", "1 file", "y/in1", "1", "z/in1", "1"),
		files("x/above", "2", "y/in2", "2", "z", "2 file"),
	)
	if err != nil {
		t.Fatal(err)
	}
	// x: directory in 2 over a file in 1, which hides x/below in 0.
	// y: directories in 2 and 1 merge; the file y in 0 is hidden.
	// z: the file in 2 hides both directories.
	expectTree(t, o, files("x/above", "2", "y/in1", "1", "y/in2", "2", "z", "2 file"))
	for _, name := range []string{"x/below", "z/in0", "z/in1"} {
		if _, err := o.Stat(name); !isNotExist(err, "stat", name) {
			t.Errorf("Stat(%q) = %v", name, err)
		}
		if _, err := o.ReadFile(name); !isNotExist(err, "readfile", name) {
			t.Errorf("ReadFile(%q) = %v", name, err)
		}
		if _, err := o.Open(name); !isNotExist(err, "open", name) {
			t.Errorf("Open(%q) = %v", name, err)
		}
	}
	if err := fstest.TestFS(o, "x/above", "y/in1", "y/in2", "z"); err != nil {
		t.Fatal(err)
	}
}

func isNotExist(err error, op, name string) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == op && pe.Path == name && errors.Is(err, fs.ErrNotExist)
}

func TestErrors(t *testing.T) {
	o := stack3(t, false)
	for _, name := range []string{"nope", "a/nope", "a/1.txt/x", "d/inner.txt", "gone/1", "gone/sub", "e/drop.txt", "t/base.txt", "r/old.txt", "nothere/x"} {
		if _, err := o.Open(name); !isNotExist(err, "open", name) {
			t.Errorf("Open(%q) = %v", name, err)
		}
		if _, err := o.Stat(name); !isNotExist(err, "stat", name) {
			t.Errorf("Stat(%q) = %v", name, err)
		}
		if _, err := o.ReadFile(name); !isNotExist(err, "readfile", name) {
			t.Errorf("ReadFile(%q) = %v", name, err)
		}
		if _, err := o.ReadDir(name); !isNotExist(err, "readdir", name) {
			t.Errorf("ReadDir(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"/a", "a/", "../a", "a//b", ""} {
		if _, err := o.Open(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want ErrInvalid", name, err)
		}
		if _, err := o.Sub(name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Sub(%q) = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := o.ReadFile("a"); err == nil {
		t.Error("ReadFile of a directory succeeded")
	}
	if _, err := o.ReadDir("d"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of a file = %v, want a not-a-directory error", err)
	}
	f, err := o.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Read(make([]byte, 1)); err == nil {
		t.Error("Read of a directory succeeded")
	}
	f.Close()
}

func TestSub(t *testing.T) {
	o := stack3(t, false)
	sub, err := fs.Sub(o, "a")
	if err != nil {
		t.Fatal(err)
	}
	expectTree(t, sub, files("1.txt", "top a1", "2.txt", "mod a2", "3.txt", "mod a3", "deep/x.txt", "base x"))
	if err := fstest.TestFS(sub, "1.txt", "2.txt", "3.txt", "deep/x.txt"); err != nil {
		t.Fatal(err)
	}
	deep, err := fs.Sub(sub, "deep")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := fs.ReadFile(deep, "x.txt"); err != nil || string(b) != "base x" {
		t.Errorf("a/deep/x.txt through two Subs = %q, %v", b, err)
	}
	for _, call := range []struct {
		op string
		fn func(string) error
	}{
		{"open", func(n string) error { _, err := sub.Open(n); return err }},
		{"stat", func(n string) error { _, err := fs.Stat(sub, n); return err }},
		{"readfile", func(n string) error { _, err := fs.ReadFile(sub, n); return err }},
		{"readdir", func(n string) error { _, err := fs.ReadDir(sub, n); return err }},
	} {
		if err := call.fn("nope"); !isNotExist(err, call.op, "nope") {
			t.Errorf("%s(nope) in Sub = %v, want a PathError naming nope", call.op, err)
		}
	}
	// Sub of a directory that two layers merge, one of them removed below.
	r, err := o.Sub("r")
	if err != nil {
		t.Fatal(err)
	}
	expectTree(t, r, files("new.txt", "mod r/new"))
}

// TestFilesUnchanged: Open returns the owning layer's file, so what the
// layer's files implement (Seek, ReadAt) stays available.
func TestFilesUnchanged(t *testing.T) {
	o := stack3(t, false)
	f, err := o.Open("a/2.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if obj, ok := fi.Sys().(*pack.Object); !ok || obj.Name != "a/2.txt" {
		t.Errorf("Sys() = %#v, want the mod package's *pack.Object", fi.Sys())
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		t.Fatalf("%T is not an io.ReaderAt", f)
	}
	b := make([]byte, 2)
	if _, err := ra.ReadAt(b, 4); err != nil || string(b) != "a2" {
		t.Errorf("ReadAt = %q, %v", b, err)
	}
	s, ok := f.(io.Seeker)
	if !ok {
		t.Fatalf("%T is not an io.Seeker", f)
	}
	if _, err := s.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(f); err != nil || string(rest) != "a2" {
		t.Errorf("after Seek: %q, %v", rest, err)
	}
}

// remover is a layer with a removal list.
type remover struct {
	fs.FS
	names []string
	err   error
}

func (r remover) Removed() ([]string, error) { return r.names, r.err }

func TestRemoverLayers(t *testing.T) {
	base := files("keep", "k", "dir/a", "a", "dir/b", "b")
	o, err := overlay.New(base, remover{FS: files("dir/b", "new b"), names: []string{"dir", "keep/not/here", "missing"}})
	if err != nil {
		t.Fatal(err)
	}
	expectTree(t, o, files("keep", "k", "dir/b", "new b"))
	// Layer 0's removals have nothing below them.
	o, err = overlay.New(remover{FS: base, names: []string{"dir"}})
	if err != nil {
		t.Fatal(err)
	}
	expectTree(t, o, base)
	// A removal in the top layer hides names of every layer below.
	o, err = overlay.New(base, files("dir/c", "c"), remover{FS: files("x", "x"), names: []string{"dir/a", "dir/c"}})
	if err != nil {
		t.Fatal(err)
	}
	expectTree(t, o, files("keep", "k", "dir/b", "b", "x", "x"))

	for _, bad := range []string{"../x", "/abs", ".", "", "a/", "a/./b"} {
		_, err := overlay.New(base, files(), remover{FS: files(), names: []string{"ok", bad}})
		if !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), "layer 2") || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("removal %q: %v, want ErrFormat naming layer 2 and the path", bad, err)
		}
	}
	fail := errors.New("no list")
	if _, err := overlay.New(base, remover{FS: files(), err: fail}); !errors.Is(err, fail) || !strings.Contains(err.Error(), "layer 1") {
		t.Errorf("Removed error: %v", err)
	}
	// A package whose metadata holds a bad list.
	p := packWithMeta(t, sd.NewObject().Set(pack.RemovedKey, sd.Array(sd.String("../../etc"))))
	if _, err := overlay.New(base, p); !errors.Is(err, bpx.ErrFormat) || !strings.Contains(err.Error(), "layer 1") {
		t.Errorf("package with a bad removal list: %v", err)
	}
	if _, err := overlay.New(); err == nil {
		t.Error("New() without layers succeeded")
	}
	if _, err := overlay.New(base, nil); err == nil {
		t.Error("New with a nil layer succeeded")
	}
}

// TestConcurrent reads through one FS from several goroutines (run with
// -race): the directory cache is shared.
func TestConcurrent(t *testing.T) {
	o := stack3(t, false)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for name, f := range want {
				if b, err := o.ReadFile(name); err != nil || string(b) != string(f.Data) {
					t.Errorf("%s: %q, %v", name, b, err)
				}
			}
		})
	}
	wg.Wait()
}
