package pack_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/types/pack"
)

func packOfTree(t testing.TB, m fs.FS, opts ...pack.WriterOption) *pack.Package {
	t.Helper()
	var buf bytes.Buffer
	w := pack.NewWriter(&buf, opts...)
	if err := w.AddFS(m); err != nil {
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

// TestDiff: added, removed and modified files by content, the same for a
// package and a directory, sorted by name.
func TestDiff(t *testing.T) {
	a := fstest.MapFS{
		"same.txt": {Data: []byte("same")}, "gone.txt": {Data: []byte("x")},
		"d/changed": {Data: []byte("aaaa")}, "d/resized": {Data: []byte("a")}, "empty": {},
		"dir/gone/1": {Data: []byte("1")}, "dir/gone/2": {Data: []byte("2")},
	}
	b := fstest.MapFS{
		"same.txt": {Data: []byte("same")}, "new.txt": {Data: []byte("n")},
		"d/changed": {Data: []byte("aaab")}, "d/resized": {Data: []byte("ab")}, "empty": {},
	}
	want := []pack.Change{
		{Name: "new.txt", Op: pack.Added},
		{Name: "d/changed", Op: pack.Modified},
		{Name: "d/resized", Op: pack.Modified},
		{Name: "dir/gone/1", Op: pack.Removed},
		{Name: "dir/gone/2", Op: pack.Removed},
		{Name: "gone.txt", Op: pack.Removed},
	}
	slices.SortFunc(want, func(x, y pack.Change) int { return cmpName(x.Name, y.Name) })
	dir := t.TempDir()
	if err := os.CopyFS(dir, b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a, b fs.FS
	}{
		{"maps", a, b},
		{"packages", packOfTree(t, a), packOfTree(t, b)},
		{"package and directory", packOfTree(t, a), os.DirFS(dir)},
	} {
		got, err := pack.Diff(tc.a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Diff = %v, want %v", tc.name, got, want)
		}
		if same, _ := pack.Diff(tc.b, tc.b); len(same) != 0 {
			t.Errorf("%s: Diff of a tree with itself = %v", tc.name, same)
		}
	}
}

// cmpName orders as Diff does: '/' before every other byte.
func cmpName(a, b string) int {
	r := func(s string) string { return string(bytes.ReplaceAll([]byte(s), []byte("/"), []byte{0})) }
	return bytes.Compare([]byte(r(a)), []byte(r(b)))
}

// TestDiffEditedPackage: a package and its edit share their untouched
// sections, so Diff finds the one changed object without decompressing
// any section.
func TestDiffEditedPackage(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 200 {
		m[fmt.Sprintf("f/%03d", i)] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(i)}, 700)}
	}
	// Sections of 10 files, all full: the editor joins none to its own.
	a := packOfTree(t, m, pack.WithSectionSize(7000))
	var edited bytes.Buffer
	e := pack.NewEditor(&edited, a, pack.WithSectionSize(7000))
	w, _ := e.Create("f/100")
	w.Write(bytes.Repeat([]byte{1}, 700))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := pack.NewReader(bytes.NewReader(edited.Bytes()), int64(edited.Len()))
	if err != nil {
		t.Fatal(err)
	}
	a2 := packOfTree(t, m, pack.WithSectionSize(7000)) // a fresh cache
	got, err := pack.Diff(a2, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []pack.Change{{Name: "f/100", Op: pack.Modified}}; !slices.Equal(got, want) {
		t.Fatalf("Diff = %v, want %v", got, want)
	}
	if n := pack.CachedSections(a2) + pack.CachedSections(b); n > 2 {
		t.Errorf("%d sections decompressed; want at most the two holding f/100", n)
	}
}

// randomTree returns a tree of up to n files in a few directories.
func randomTree(rng *rand.Rand, n int) fstest.MapFS {
	m := fstest.MapFS{}
	for range rng.IntN(n + 1) {
		name := fmt.Sprintf("%c/%c", 'a'+rng.IntN(4), 'a'+rng.IntN(6))
		if rng.IntN(3) == 0 {
			name = fmt.Sprintf("%c", 'a'+rng.IntN(6))
		}
		if rng.IntN(4) == 0 {
			name += fmt.Sprintf("/%c", 'p'+rng.IntN(3))
		}
		m[name] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(rng.IntN(3))}, rng.IntN(3)*50)}
	}
	// A name cannot be a file and a directory: drop the files that are.
	for name := range m {
		for other := range m {
			if len(other) > len(name) && other[:len(name)+1] == name+"/" {
				delete(m, name)
				break
			}
		}
	}
	return m
}

// files returns the regular files of fsys with their contents.
func files(t testing.TB, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		out[name] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPatchProperty: for random trees A and B (adds, removals, changes,
// files replaced by directories and the reverse, empty files, empty
// trees), the patch package of Diff(A, B) layered over A shows exactly B,
// also once unpacked.
func TestPatchProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	for round := range rounds {
		ta, tb := randomTree(rng, 12), randomTree(rng, 12)
		if round%10 == 0 {
			tb = fstest.MapFS{}
		}
		a, b := packOfTree(t, ta), packOfTree(t, tb)
		patch, changes := patchOf(t, a, b)
		stack, err := overlay.New(a, patch)
		if err != nil {
			t.Fatal(err)
		}
		want := files(t, tb)
		if got := files(t, stack); !mapsEqual(got, want) {
			t.Fatalf("round %d: A %v, B %v, changes %v:\nstack %v\nwant  %v", round, keys(ta), keys(tb), changes, got, want)
		}
		out := t.TempDir()
		if err := pack.UnpackFS(out, stack); err != nil {
			t.Fatal(err)
		}
		if got := files(t, os.DirFS(out)); !mapsEqual(got, want) {
			t.Fatalf("round %d: unpacked %v, want %v", round, got, want)
		}
	}
}

// patchOf writes and opens the patch package from a to b, and returns it
// with the changes it was written from.
func patchOf(t testing.TB, a, b fs.FS) (*pack.Package, []pack.Change) {
	t.Helper()
	changes, err := pack.Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if err := pack.WritePatch(w, a, b, changes); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	patch, err := pack.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return patch, changes
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m fstest.MapFS) []string {
	var k []string
	for name := range m {
		k = append(k, name)
	}
	slices.Sort(k)
	return k
}

// TestUnpackFS: existing files are kept unless Overwrite, paths select,
// and a failing copy leaves no file.
func TestUnpackFS(t *testing.T) {
	m := fstest.MapFS{"a/b": {Data: []byte("b")}, "c": {Data: []byte("c")}}
	dir := t.TempDir()
	if err := pack.UnpackFS(dir, m, pack.WithPaths("a")); err != nil {
		t.Fatal(err)
	}
	if got := files(t, os.DirFS(dir)); !mapsEqual(got, map[string]string{"a/b": "b"}) {
		t.Errorf("WithPaths(a): %v", got)
	}
	if err := pack.UnpackFS(dir, m); err == nil {
		t.Error("UnpackFS over an existing file succeeded without Overwrite")
	}
	if err := pack.UnpackFS(dir, m, pack.Overwrite()); err != nil {
		t.Fatal(err)
	}
	if got := files(t, os.DirFS(dir)); !mapsEqual(got, map[string]string{"a/b": "b", "c": "c"}) {
		t.Errorf("Overwrite: %v", got)
	}
	if err := os.Symlink(filepath.Join(dir, "c"), filepath.Join(dir, "link")); err == nil {
		if err := pack.UnpackFS(dir, fstest.MapFS{"link": {Data: []byte("x")}}, pack.Overwrite()); err == nil {
			t.Error("UnpackFS wrote through a symbolic link")
		}
	}
	// A directory that is a symbolic link in dir is not written through.
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	if err := os.Symlink(real, filepath.Join(dir, "linkdir")); err == nil {
		if err := pack.UnpackFS(dir, fstest.MapFS{"linkdir/f": {Data: []byte("x")}}); err == nil {
			t.Error("UnpackFS wrote through a symbolic link to a directory")
		}
		if err := pack.UnpackFS(dir, fstest.MapFS{"linkdir/f": {Data: []byte("x")}}, pack.WithPaths("linkdir/f")); err == nil {
			t.Error("UnpackFS wrote through a symbolic link to a parent directory")
		}
		if _, err := os.Stat(filepath.Join(real, "f")); err == nil {
			t.Error("a file appeared behind the link")
		}
	}
	if err := pack.UnpackFS(dir, m, pack.WithPaths("nothing")); err == nil {
		t.Error("WithPaths of a missing name succeeded")
	}
	if err := pack.UnpackFS(dir, failingFS{m}, pack.Overwrite()); err == nil {
		t.Error("a failing read succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); err == nil {
		if b, _ := os.ReadFile(filepath.Join(dir, "c")); len(b) != 0 {
			// the truncated file is removed, never left half written
			t.Errorf("c after a failed copy: %q", b)
		}
	}
}

// failingFS fails every read of c.
type failingFS struct{ fstest.MapFS }

func (f failingFS) Open(name string) (fs.File, error) {
	file, err := f.MapFS.Open(name)
	if name == "c" && err == nil {
		return failingFile{file}, nil
	}
	return file, err
}

type failingFile struct{ fs.File }

func (failingFile) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }
