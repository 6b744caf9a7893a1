package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// objectNames returns the names bpx ls -0 prints for pkg, sorted.
func objectNames(t *testing.T, pkg string) []string {
	t.Helper()
	r := runBPX(t, nil, "ls", "-0", pkg)
	if r.Code != exitOK {
		t.Fatalf("ls %s: %+v", pkg, r)
	}
	names := strings.Split(strings.TrimSuffix(r.Stdout, "\x00"), "\x00")
	slices.Sort(names)
	return names
}

// TestAddSkipsOwnFiles: bpx add of the directory that holds the package
// stores neither the package nor the temporary file it writes the edit
// to, nor OUT, and says so.
func TestAddSkipsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	pkg := packTree(t, dir, map[string]string{"a.txt": "a"})
	os.RemoveAll(filepath.Join(dir, "src"))
	writeFiles(t, dir, map[string]string{"b.txt": "b"})
	r := runBPXIn(t, dir, "add", "base.bpx", ".")
	if r.Code != exitOK {
		t.Fatalf("add: %+v", r)
	}
	if got, want := objectNames(t, pkg), []string{"a.txt", "b.txt"}; !slices.Equal(got, want) {
		t.Errorf("add base.bpx . stored %q, want %q", got, want)
	}
	if !strings.Contains(r.Stderr, "base.bpx") || !strings.Contains(r.Stderr, "not added") {
		t.Errorf("add says nothing of skipping the package: %q", r.Stderr)
	}
	// With -o, an OUT that exists in the tree is skipped too, and so is the
	// package.
	for range 2 {
		if r := runBPXIn(t, dir, "add", "-o", "out.bpx", "base.bpx", "."); r.Code != exitOK {
			t.Fatalf("add -o: %+v", r)
		}
		if got, want := objectNames(t, filepath.Join(dir, "out.bpx")), []string{"a.txt", "b.txt"}; !slices.Equal(got, want) {
			t.Errorf("add -o out.bpx base.bpx . stored %q, want %q", got, want)
		}
	}
}

// TestPackSkipsOwnFiles: bpx pack into the directory it packs stores
// neither its temporary file nor an OUT already there, and says so.
func TestPackSkipsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "assets"), map[string]string{"a.txt": "a", "sub/b.txt": "b"})
	want := []string{"a.txt", "sub/b.txt"}
	for i := range 2 { // the second time, assets/out.bpx exists
		r := runBPXIn(t, dir, "pack", "-q", "-o", "assets/out.bpx", "assets")
		if r.Code != exitOK {
			t.Fatalf("pack: %+v", r)
		}
		if got := objectNames(t, filepath.Join(dir, "assets", "out.bpx")); !slices.Equal(got, want) {
			t.Errorf("pack %d stored %q, want %q", i, got, want)
		}
		if note := strings.Contains(r.Stderr, "out.bpx") && strings.Contains(r.Stderr, "not packed"); note != (i == 1) {
			t.Errorf("pack %d: stderr %q", i, r.Stderr)
		}
	}
}

// TestPackDefaultName: without -o, the package is named after DIR's
// absolute path, in the current directory: "." and ".." name no hidden
// "..bpx" or "...bpx", and the root refuses to guess.
func TestPackDefaultName(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	writeFiles(t, proj, map[string]string{"a.txt": "a", "sub/b.txt": "b"})
	for _, tc := range []struct{ cwd, arg, out string }{
		{proj, ".", filepath.Join(proj, "proj.bpx")},
		{filepath.Join(proj, "sub"), "..", filepath.Join(proj, "sub", "proj.bpx")},
		{dir, "proj" + string(filepath.Separator), filepath.Join(dir, "proj.bpx")},
		{dir, "proj/./sub/", filepath.Join(dir, "sub.bpx")},
	} {
		r := runBPXIn(t, tc.cwd, "pack", "-q", tc.arg)
		if r.Code != exitOK {
			t.Fatalf("pack %s: %+v", tc.arg, r)
		}
		if _, err := os.Stat(tc.out); err != nil {
			entries, _ := os.ReadDir(tc.cwd)
			t.Fatalf("pack %s in %s: %v; the directory holds %v", tc.arg, tc.cwd, err, entries)
		}
		for _, hidden := range []string{"..bpx", "...bpx"} {
			if _, err := os.Stat(filepath.Join(tc.cwd, hidden)); err == nil {
				t.Errorf("pack %s wrote %s", tc.arg, hidden)
			}
		}
		os.Remove(tc.out)
	}
	r := runBPXIn(t, dir, "pack", "-q", string(filepath.Separator))
	if r.Code != exitUsage || !strings.Contains(r.Stderr, "-o") {
		t.Errorf("pack / without -o: %+v", r)
	}
}
