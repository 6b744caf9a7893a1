package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// packTree packs files into dir/base.bpx with small sections and returns
// the package's path.
func packTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	src := filepath.Join(dir, "src")
	writeFiles(t, src, files)
	pkg := filepath.Join(dir, "base.bpx")
	if r := runBPX(t, nil, "pack", "-q", "--section-size", "4096", "-o", pkg, src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	return pkg
}

// unpacked returns the files of the package pkg.
func unpacked(t *testing.T, pkg string) map[string]string {
	t.Helper()
	out := t.TempDir()
	if r := runBPX(t, nil, "unpack", "-q", "-C", out, pkg); r.Code != exitOK {
		t.Fatalf("unpack %s: %+v", pkg, r)
	}
	return readFiles(t, out)
}

// TestEditCommands: add, rm, mv and repack change a package in place as a
// model of its tree changes.
func TestEditCommands(t *testing.T) {
	dir := t.TempDir()
	pkg := packTree(t, dir, roundTripFiles)
	want := map[string]string{}
	for k, v := range roundTripFiles {
		want[k] = v
	}
	mod := filepath.Join(dir, "mod")
	writeFiles(t, mod, map[string]string{"readme.txt": "replaced\n", "new/dir/a.txt": "a", "new/b.txt": "b"})
	want["readme.txt"] = "replaced\n"
	want["new/dir/a.txt"], want["new/b.txt"] = "a", "b"
	steps := []struct {
		args   []string
		change func()
	}{
		{[]string{"add", "-C", mod, pkg, "readme.txt", "new"}, nil},
		{[]string{"rm", pkg, "scripts/init.lua", "deep"}, func() {
			delete(want, "scripts/init.lua")
			delete(want, "deep/1/2/3/4/5/leaf")
		}},
		{[]string{"mv", pkg, "new", "moved/new"}, func() {
			want["moved/new/dir/a.txt"], want["moved/new/b.txt"] = "a", "b"
			delete(want, "new/dir/a.txt")
			delete(want, "new/b.txt")
		}},
		{[]string{"mv", pkg, "empty.bin", "empty2.bin"}, func() { want["empty2.bin"] = ""; delete(want, "empty.bin") }},
	}
	for _, s := range steps {
		if r := runBPX(t, nil, s.args...); r.Code != exitOK || r.Stderr != "" {
			t.Fatalf("%v: %+v", s.args, r)
		}
		if s.change != nil {
			s.change()
		}
		if got := unpacked(t, pkg); !equalMaps(got, want) {
			t.Fatalf("after %v:\n got %v\nwant %v", s.args, got, want)
		}
	}
	if r := runBPX(t, nil, "info", pkg); !strings.Contains(r.Stdout, "dead bytes: ") || strings.Contains(r.Stdout, "dead bytes: 0 ") {
		t.Errorf("info after removals does not count dead bytes:\n%s", r.Stdout)
	}
	out := filepath.Join(dir, "compact.bpx")
	if r := runBPX(t, nil, "repack", "-o", out, pkg); r.Code != exitOK {
		t.Fatalf("repack: %+v", r)
	}
	if r := runBPX(t, nil, "info", out); !strings.Contains(r.Stdout, "dead bytes: 0 ") {
		t.Errorf("info after repack:\n%s", r.Stdout)
	}
	if got := unpacked(t, out); !equalMaps(got, want) {
		t.Errorf("repack changed the tree: %v", got)
	}
	if r := runBPX(t, nil, "repack", "--all", "-c", "zlib", pkg); r.Code != exitOK {
		t.Fatalf("repack --all: %+v", r)
	}
	if got := unpacked(t, pkg); !equalMaps(got, want) {
		t.Errorf("repack --all changed the tree: %v", got)
	}
	if r := runBPX(t, nil, "info", "--json", pkg); !strings.Contains(r.Stdout, `"dead_bytes": 0`) {
		t.Errorf("info --json: %s", r.Stdout)
	}
}

// TestEditCommandsRefuse: a bad name, a name that matches nothing or a
// damaged package is an error (exit 1) that leaves the package as it was.
func TestEditCommandsRefuse(t *testing.T) {
	dir := t.TempDir()
	pkg := packTree(t, dir, roundTripFiles)
	orig, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(dir, "mod"), map[string]string{"f": "x"})
	for _, args := range [][]string{
		{"rm", pkg, "nothing"},
		{"rm", pkg, "readme.txt", "nothing"},
		{"rm", pkg, "../readme.txt"},
		{"mv", pkg, "readme.txt", "/abs"},
		{"mv", pkg, "readme.txt", "empty.bin"},
		{"mv", pkg, "nothing", "x"},
		{"add", "-C", filepath.Join(dir, "mod"), pkg, "../src/readme.txt"},
		{"add", "-C", filepath.Join(dir, "mod"), pkg, "missing"},
		{"add", "-C", filepath.Join(dir, "mod"), pkg, "f", "readme.txt"},
	} {
		r := runBPX(t, nil, args...)
		if r.Code != exitFail {
			t.Errorf("%v: %+v", args, r)
		}
		checkOneLineError(t, r)
		if got, _ := os.ReadFile(pkg); !bytes.Equal(got, orig) {
			t.Fatalf("%v changed the package", args)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 { // src, mod, base.bpx
		t.Errorf("files left behind: %v", ents)
	}
	// A damaged package is refused before anything is written.
	trunc := filepath.Join(dir, "trunc.bpx")
	os.WriteFile(trunc, orig[:len(orig)/2], 0o644)
	for _, args := range [][]string{{"rm", trunc, "readme.txt"}, {"mv", trunc, "readme.txt", "x"}} {
		if r := runBPX(t, nil, args...); r.Code != exitFail {
			t.Errorf("%v on a truncated package: %+v", args, r)
		}
		if got, _ := os.ReadFile(trunc); !bytes.Equal(got, orig[:len(orig)/2]) {
			t.Errorf("%v changed the truncated package", args)
		}
	}
}
