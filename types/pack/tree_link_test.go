//go:build unix

package pack_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gobpx/bpx/types/pack"
)

// linkTree makes a directory with a.txt, dir/b.txt, a link to a file and
// a link to a directory.
func linkTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(root, "dir", "b.txt"), []byte("b"), 0o644)
	if err := os.Symlink("a.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Skip(err)
	}
	os.Symlink("dir", filepath.Join(root, "linked"))
	return root
}

// TestWalkTreeLinks: links to files and directories are walked as what
// they lead to, under their names, by WalkTree, AddFS and Diff; a link to
// a directory holding it is ErrLinkLoop, a dangling one ErrDanglingLink
// (or skipped, named, with a dangling function), a named pipe
// ErrNotRegular: each error names the entry.
func TestWalkTreeLinks(t *testing.T) {
	root := linkTree(t)
	var names []string
	err := pack.WalkTree(os.DirFS(root), ".", nil, func(name string, info fs.FileInfo) error {
		if !info.IsDir() {
			names = append(names, name)
		}
		return nil
	})
	want := []string{"a.txt", "dir/b.txt", "link.txt", "linked/b.txt"}
	if err != nil || !slices.Equal(names, want) {
		t.Fatalf("WalkTree: %q, %v; want %q", names, err, want)
	}
	p := packOfTree(t, os.DirFS(root))
	if b, err := fs.ReadFile(p, "linked/b.txt"); err != nil || string(b) != "b" {
		t.Errorf("linked/b.txt: %q, %v", b, err)
	}
	if b, err := fs.ReadFile(p, "link.txt"); err != nil || string(b) != "a" {
		t.Errorf("link.txt: %q, %v", b, err)
	}
	copyRoot := t.TempDir()
	for _, n := range want {
		os.MkdirAll(filepath.Join(copyRoot, filepath.Dir(n)), 0o755)
		b, _ := os.ReadFile(filepath.Join(root, n))
		os.WriteFile(filepath.Join(copyRoot, n), b, 0o644)
	}
	if changes, err := pack.Diff(os.DirFS(root), os.DirFS(copyRoot)); err != nil || len(changes) != 0 {
		t.Errorf("Diff of the links and their copies: %v, %v", changes, err)
	}

	for _, c := range []struct {
		what   string
		make   func(root string) string // returns the entry's name in the tree
		target error
	}{
		{"a link to its own directory", func(root string) string {
			os.Symlink("..", filepath.Join(root, "dir", "up"))
			return "dir/up"
		}, pack.ErrLinkLoop},
		{"a link to the root", func(root string) string {
			os.Symlink(root, filepath.Join(root, "dir", "top"))
			return "dir/top"
		}, pack.ErrLinkLoop},
		{"a dangling link", func(root string) string {
			os.Symlink("nowhere.png", filepath.Join(root, "dir", "gone.png"))
			return "dir/gone.png"
		}, pack.ErrDanglingLink},
		{"a named pipe", func(root string) string {
			if err := syscall.Mkfifo(filepath.Join(root, "dir", "pipe"), 0o644); err != nil {
				t.Skip(err)
			}
			return "dir/pipe"
		}, pack.ErrNotRegular},
	} {
		root := linkTree(t)
		name := c.make(root)
		check := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, c.target) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s: %s: %v, want %v naming %s", c.what, op, err, c.target, name)
			}
		}
		fsys := os.DirFS(root)
		check("WalkTree", pack.WalkTree(fsys, ".", nil, func(string, fs.FileInfo) error { return nil }))
		check("AddFS", pack.NewWriter(io.Discard).AddFS(fsys))
		_, err := pack.Diff(fsys, os.DirFS(t.TempDir()))
		check("Diff", err)
		if c.target == pack.ErrDanglingLink {
			if !strings.Contains(err.Error(), "nowhere.png") {
				t.Errorf("the error does not say where the link leads: %v", err)
			}
			var skipped []string
			err := pack.WalkTree(fsys, ".", func(n string) { skipped = append(skipped, n) }, func(string, fs.FileInfo) error { return nil })
			if err != nil || !slices.Equal(skipped, []string{name, "linked/gone.png"}) { // also through the link to dir
				t.Errorf("skipping dangling links: %q, %v", skipped, err)
			}
		}
	}
}
