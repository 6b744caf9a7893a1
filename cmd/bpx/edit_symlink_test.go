//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEditThroughSymlink (issue 24, item 9): an edit of a PACKAGE that is
// a symbolic link edits the file it points to and keeps the link (it
// used to replace the link with the edited file, leaving the target as it
// was); -o still writes OUT.
func TestEditThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	pkg := packTree(t, dir, map[string]string{"a.txt": "a"})
	link := filepath.Join(dir, "current.bpx")
	if err := os.Symlink("base.bpx", link); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(dir, "mod"), map[string]string{"b.txt": "b"})
	for _, args := range [][]string{
		{"add", "-C", filepath.Join(dir, "mod"), link, "b.txt"},
		{"mv", link, "b.txt", "c.txt"},
		{"rm", link, "a.txt"},
		{"repack", link},
	} {
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
		if fi, err := os.Lstat(link); err != nil {
			t.Fatal(err)
		} else if fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %v: %s is no longer a link but %v", args, link, fi.Mode())
		}
	}
	if got, want := unpacked(t, pkg), map[string]string{"c.txt": "b"}; !equalMaps(got, want) {
		t.Errorf("the link's target holds %v, want %v", got, want)
	}
	out := filepath.Join(dir, "out.bpx")
	if r := runBPX(t, nil, "mv", "-o", out, link, "c.txt", "d.txt"); r.Code != exitOK {
		t.Fatalf("mv -o: %+v", r)
	}
	if got, want := unpacked(t, pkg), map[string]string{"c.txt": "b"}; !equalMaps(got, want) {
		t.Errorf("-o changed the target: %v", got)
	}
	if got, want := unpacked(t, out), map[string]string{"d.txt": "b"}; !equalMaps(got, want) {
		t.Errorf("OUT holds %v, want %v", got, want)
	}
}
