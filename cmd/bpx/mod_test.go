package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModWorkflow: diff two trees, write the patch, and see B through the
// base with -L in ls, cat and unpack; diff's exit status is diff(1)'s.
func TestModWorkflow(t *testing.T) {
	dir := t.TempDir()
	a := map[string]string{"keep.txt": "k", "change.txt": "old", "gone/x": "x", "gone/y": "y", "file-then-dir": "f", "d/deep": "d"}
	b := map[string]string{"keep.txt": "k", "change.txt": "new!", "added/z": "z", "file-then-dir/inner": "i", "d": "now a file"}
	srcA, srcB := filepath.Join(dir, "A"), filepath.Join(dir, "B")
	writeFiles(t, srcA, a)
	writeFiles(t, srcB, b)
	pkgA, pkgB, patch := filepath.Join(dir, "a.bpx"), filepath.Join(dir, "b.bpx"), filepath.Join(dir, "patch.bpx")
	for _, args := range [][]string{{"pack", "-q", "-o", pkgA, srcA}, {"pack", "-q", "-o", pkgB, srcB}} {
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	want := "+ added/z\nM change.txt\n+ d\n- d/deep\n- file-then-dir\n+ file-then-dir/inner\n- gone/x\n- gone/y\n"
	for _, pair := range [][2]string{{pkgA, pkgB}, {srcA, pkgB}, {pkgA, srcB}} {
		r := runBPX(t, nil, "diff", pair[0], pair[1])
		if r.Code != exitFail || r.Stdout != want {
			t.Errorf("diff %v: status %d, output\n%s\nwant\n%s", pair, r.Code, r.Stdout, want)
		}
	}
	if r := runBPX(t, nil, "diff", pkgA, srcA); r.Code != exitOK || r.Stdout != "" {
		t.Errorf("diff of equal trees: %+v", r)
	}
	if r := runBPX(t, nil, "diff", pkgA, filepath.Join(dir, "missing")); r.Code != exitUsage {
		t.Errorf("diff with a missing input: %+v", r)
	}
	r := runBPX(t, nil, "diff", "--json", "--patch", patch, pkgA, pkgB)
	var list []struct{ Path, Change string }
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || r.Code != exitFail || len(list) != 8 {
		t.Fatalf("diff --json --patch: %+v (%v)", r, err)
	}
	out := t.TempDir()
	if r := runBPX(t, nil, "unpack", "-q", "-L", patch, "-C", out, pkgA); r.Code != exitOK {
		t.Fatalf("unpack -L: %+v", r)
	}
	if got := readFiles(t, out); !equalMaps(got, b) {
		t.Errorf("unpack -L patch A = %v, want B %v", got, b)
	}
	r = runBPX(t, nil, "ls", "-L", patch, pkgA)
	var names []string
	for name := range b {
		names = append(names, name)
	}
	slices.Sort(names)
	if got := strings.Fields(r.Stdout); r.Code != exitOK || !slices.Equal(got, names) {
		t.Errorf("ls -L: %v, want %v", got, names)
	}
	if r := runBPX(t, nil, "cat", "-L", patch, pkgA, "change.txt"); r.Stdout != "new!" {
		t.Errorf("cat -L: %+v", r)
	}
	if r := runBPX(t, nil, "cat", "-L", patch, pkgA, "gone/x"); r.Code != exitFail {
		t.Errorf("cat -L of a removed file: %+v", r)
	}
	// Two layers: the patch, then a mod that changes a file again.
	mod := filepath.Join(dir, "mod")
	writeFiles(t, mod, map[string]string{"keep.txt": "mod"})
	modPkg := filepath.Join(dir, "mod.bpx")
	runBPX(t, nil, "pack", "-q", "-o", modPkg, mod)
	if r := runBPX(t, nil, "cat", "-L", patch, "-L", modPkg, pkgA, "keep.txt"); r.Stdout != "mod" {
		t.Errorf("cat with two layers: %+v", r)
	}
	if r := runBPX(t, nil, "ls", "-l", "--json", "-L", patch, pkgA); !strings.Contains(r.Stdout, `"path": "added/z"`) {
		t.Errorf("ls -L --json: %s", r.Stdout)
	}
}
