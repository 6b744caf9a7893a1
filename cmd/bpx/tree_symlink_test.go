//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// symlink makes a symbolic link at link to target and returns link.
func symlink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	return link
}

// TestTreeSymlinks (issue 32, goal 6): pack, add and diff follow links to
// files and directories; a link to a directory holding it and a dangling
// link are errors naming them (the latter also the flag that skips such
// links), and write nothing; --skip-dangling skips dangling links, naming
// each, escaped, on standard error.
func TestTreeSymlinks(t *testing.T) {
	base := map[string]string{"a.txt": "a", "dir/b.txt": "b"}
	dir := t.TempDir()
	tree, copied := filepath.Join(dir, "T"), filepath.Join(dir, "C")
	writeFiles(t, tree, base)
	symlink(t, "a.txt", filepath.Join(tree, "link.txt"))
	symlink(t, "dir", filepath.Join(tree, "linked"))
	writeFiles(t, copied, map[string]string{"a.txt": "a", "dir/b.txt": "b", "link.txt": "a", "linked/b.txt": "b"})

	out := filepath.Join(dir, "t.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", out, tree); r.Code != 0 {
		t.Fatalf("pack: %+v", r)
	}
	if r := runBPX(t, nil, "cat", out, "linked/b.txt"); r.Code != 0 || r.Stdout != "b" {
		t.Errorf("cat linked/b.txt: %+v", r)
	}
	if r := runBPX(t, nil, "diff", tree, copied); r.Code != 0 || r.Stdout != "" {
		t.Errorf("diff of the links and their copies: %+v", r)
	}
	if r := runBPX(t, nil, "add", "-C", tree, out, "linked"); r.Code != 0 {
		t.Errorf("add through a link: %+v", r)
	}

	for _, c := range []struct {
		what, link, target, want string
	}{
		{"loop", "dir/up", "..", "holds it"},
		{"dangling", "dir/gone\x1b[31m.png", "nowhere.png", "--skip-dangling"},
	} {
		symlink(t, c.target, filepath.Join(tree, filepath.FromSlash(c.link)))
		shown := strings.ReplaceAll(c.link, "\x1b", `\x1b`)
		pkg := filepath.Join(dir, c.what+".bpx")
		for _, args := range [][]string{
			{"pack", "-q", "-o", pkg, tree},
			{"add", "-C", tree, out, "dir"},
			{"diff", tree, copied},
		} {
			before, _ := os.ReadFile(out)
			r := runBPX(t, nil, args...)
			want := 1
			if args[0] == "diff" {
				want = 2
			}
			if r.Code != want || !strings.Contains(r.Stderr, shown) || !strings.Contains(r.Stderr, c.want) || strings.Contains(r.Stderr, "\x1b") {
				t.Errorf("%s: %v: %+v, want status %d naming %q and %q", c.what, args, r, want, shown, c.want)
			}
			if _, err := os.Lstat(pkg); !os.IsNotExist(err) {
				t.Errorf("%s: pack wrote %s", c.what, pkg)
			}
			if after, _ := os.ReadFile(out); string(after) != string(before) {
				t.Errorf("%s: %v changed %s", c.what, args, out)
			}
		}
		if c.what == "loop" {
			os.Remove(filepath.Join(tree, filepath.FromSlash(c.link)))
			continue
		}
		r := runBPX(t, nil, "pack", "-q", "--skip-dangling", "-o", pkg, tree)
		if r.Code != 0 || !strings.Contains(r.Stderr, "skipped "+shown) || !strings.Contains(r.Stderr, "nowhere.png") || strings.Contains(r.Stderr, "\x1b") {
			t.Errorf("pack --skip-dangling: %+v", r)
		}
		if r := runBPX(t, nil, "ls", pkg); r.Code != 0 || strings.Contains(r.Stdout, "gone") || !strings.Contains(r.Stdout, "linked/b.txt") {
			t.Errorf("ls of the package packed with --skip-dangling: %+v", r)
		}
		if r := runBPX(t, nil, "diff", "--skip-dangling", tree, copied); r.Code != 0 || !strings.Contains(r.Stderr, "skipped "+shown) {
			t.Errorf("diff --skip-dangling: %+v", r)
		}
		if r := runBPX(t, nil, "add", "--skip-dangling", "-C", tree, out, "dir"); r.Code != 0 || !strings.Contains(r.Stderr, "skipped "+shown) {
			t.Errorf("add --skip-dangling: %+v", r)
		}
	}
}
