//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffRefusesSymlinks (issue 24, item 4): a symbolic link anywhere in
// a directory that diff compares is trouble (exit 2) naming the link, as
// pack and add refuse it, and --patch writes nothing: diff used to skip
// links, calling trees that differ the same. A --patch OUT that existed is
// left as it was.
func TestDiffRefusesSymlinks(t *testing.T) {
	base := map[string]string{"a.txt": "a", "dir/b.txt": "b"}
	for _, tc := range []struct {
		name string
		// setup makes the trees A and B, returning the link's path.
		setup func(t *testing.T, a, b string) string
	}{
		{"new link in B", func(t *testing.T, a, b string) string {
			return symlink(t, "a.txt", filepath.Join(b, "new.txt"))
		}},
		{"file of A replaced by a link in B", func(t *testing.T, a, b string) string {
			os.Remove(filepath.Join(b, "dir", "b.txt"))
			return symlink(t, "../a.txt", filepath.Join(b, "dir", "b.txt"))
		}},
		{"link to a directory", func(t *testing.T, a, b string) string {
			return symlink(t, "dir", filepath.Join(b, "linked"))
		}},
		{"link in A only", func(t *testing.T, a, b string) string {
			return symlink(t, "b.txt", filepath.Join(a, "dir", "l\x1b[31m"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "A"), filepath.Join(dir, "B")
			writeFiles(t, a, base)
			writeFiles(t, b, base)
			link := tc.setup(t, a, b)
			shown := strings.ReplaceAll(link, "\x1b", `\x1b`)
			for _, args := range [][]string{{"diff", a, b}, {"diff", "--json", a, b}} {
				if r := runBPX(t, nil, args...); r.Code != exitUsage || r.Stdout != "" || !strings.Contains(r.Stderr, shown) || strings.Contains(r.Stderr, "\x1b") {
					t.Errorf("%v: %+v, want status 2 naming %q", args, r, shown)
				}
			}
			patch := filepath.Join(dir, "new.bpx")
			if r := runBPX(t, nil, "diff", "--patch", patch, a, b); r.Code != exitUsage || !strings.Contains(r.Stderr, shown) {
				t.Errorf("--patch: %+v", r)
			}
			if _, err := os.Lstat(patch); !os.IsNotExist(err) {
				t.Errorf("--patch wrote %s (%v)", patch, err)
			}
			old := filepath.Join(dir, "old.bpx")
			before := []byte("an earlier patch")
			if err := os.WriteFile(old, before, 0o644); err != nil {
				t.Fatal(err)
			}
			if r := runBPX(t, nil, "diff", "--patch", old, a, b); r.Code != exitUsage {
				t.Errorf("--patch over a file: %+v", r)
			}
			if got, err := os.ReadFile(old); err != nil || !bytes.Equal(got, before) {
				t.Errorf("--patch OUT now holds %q (%v)", got, err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 3 {
				t.Errorf("left in %s: %v", dir, entries)
			}
		})
	}
}

// symlink makes a symbolic link at link to target and returns link.
func symlink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	return link
}
