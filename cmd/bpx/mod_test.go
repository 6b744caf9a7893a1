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

// TestLsLayeredDir: bpx ls -L MOD BASE DIR lists that directory of the
// layered tree, as bpx ls BASE DIR lists one of a package (issue 43 item
// 3: it was refused).
func TestLsLayeredDir(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "base"), map[string]string{"a/x.txt": "x", "a/sub/s": "s", "b.txt": "bb"})
	writeFiles(t, filepath.Join(dir, "mod"), map[string]string{"a/y.txt": "yyy", "a/x.txt": "modded"})
	base, mod := filepath.Join(dir, "base.bpx"), filepath.Join(dir, "mod.bpx")
	for _, args := range [][]string{{"pack", "-q", "-o", base, filepath.Join(dir, "base")}, {"pack", "-q", "-o", mod, filepath.Join(dir, "mod")}} {
		if r := runBPX(t, nil, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a"}, "sub/\nx.txt\ny.txt\n"},
		{[]string{"-l", "."}, "         dir  a/\n           2  b.txt\n"},
		{[]string{"-l", "a"}, "         dir  sub/\n           6  x.txt\n           3  y.txt\n"},
		{[]string{"-0", "a"}, "sub/\x00x.txt\x00y.txt\x00"},
		{[]string{"--json", "a"}, `[{"path":"a/sub/","size":0},{"path":"a/x.txt","size":6},{"path":"a/y.txt","size":3}]`},
	} {
		r := runBPX(t, nil, append(append([]string{"ls"}, c.args[:len(c.args)-1]...), "-L", mod, base, c.args[len(c.args)-1])...)
		got := r.Stdout
		if c.args[0] == "--json" {
			var v any
			if err := json.Unmarshal([]byte(got), &v); err != nil {
				t.Fatalf("%v: %v", c.args, err)
			}
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if r.Code != exitOK || got != c.want {
			t.Errorf("ls %v -L: code %d, %q, want %q (stderr %q)", c.args, r.Code, got, c.want, r.Stderr)
		}
	}
	if r := runBPX(t, nil, "ls", "-L", mod, base, "nope"); r.Code != exitFail || !strings.Contains(r.Stderr, "nope") {
		t.Errorf("ls -L of a missing directory: %+v", r)
	}
}
