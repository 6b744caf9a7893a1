package pack

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// packOf writes a package with opts, lets fill add its content, and opens it.
func packOf(t *testing.T, opts []WriterOption, fill func(w *Writer) error) *Package {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, opts...)
	if err := fill(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUnpackSelectedPaths(t *testing.T) {
	p := packOf(t, nil, func(w *Writer) error { return w.AddFS(testTree()) })
	out := t.TempDir()
	if err := p.Unpack(out, WithPaths("hello.txt", "dir/sub")); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(got)
	want := []string{"dir/sub/b.bin", "dir/sub/deeper/c.txt", "hello.txt"}
	if len(got) != len(want) {
		t.Fatalf("extracted %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("extracted %v, want %v", got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "textures")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unselected directory created: %v", err)
	}
	for _, bad := range []string{"nope.txt", "dir/su", "../x"} {
		err := p.Unpack(t.TempDir(), WithPaths(bad))
		if err == nil {
			t.Errorf("Paths %q: no error", bad)
		}
	}
}

func TestMetadataNames(t *testing.T) {
	for _, names := range []bool{false, true} {
		var opts []WriterOption
		if names {
			opts = append(opts, WithMetadataNames())
		}
		p := packOf(t, opts, func(w *Writer) error {
			return w.SetMetadataValue(struct {
				Name string `sd:"name"`
			}{"m"})
		})
		m, err := p.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.At(0).Name != ""; got != names {
			t.Errorf("MetadataNames %v: key name known = %v", names, got)
		}
	}
}
