package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runnableExamples are the commands whose help examples TestExamplesRun
// runs as written; the others need inputs of other types (textures, BLK,
// BO3D, tables) or keep running (serve).
var runnableExamples = []string{"info", "verify", "cat", "ls", "pack", "unpack", "add", "rm", "mv", "repack", "diff", "sd", "version", "keygen", "sign"}

// unrunExamples are the examples of runnableExamples that need what the
// fixture does not make, and why.
var unrunExamples = map[string]string{
	"bpx sd -s 3 --typed model.bpx":                               "needs a model",
	"bpx sign --key ~/.ssh/id_ed25519 -o mod-signed.bpx mod.bpx":  "needs the user's SSH key",
	"bpx diff https://cdn.example.com/game/assets.bpx assets.bpx": "needs a server (TestDiffURLLocal)",
}

// exampleFixture writes the files the examples name into dir: the tree
// assets, the packages game.bpx (of assets, before assets/textures/new.png
// was added), mod.bpx, old.bpx and new.bpx, and a copy of mod.bpx as
// assets/ui.bpx; game.bpx has metadata; the key pair modkey, whose public
// key trusted.keys holds, signed mod.bpx.
func exampleFixture(t *testing.T, dir string) {
	t.Helper()
	writeFiles(t, filepath.Join(dir, "assets"), map[string]string{
		"textures/sky.png":   "sky",
		"textures/old/a.png": "old",
		"models/ship.mesh":   strings.Repeat("vertex ", 2000),
	})
	writeFiles(t, filepath.Join(dir, "modsrc"), map[string]string{"textures/sky.png": "modded sky"})
	writeFiles(t, dir, map[string]string{"meta.json": `{"name": "game"}`})
	for _, p := range [][]string{
		{"-o", "game.bpx", "--meta", "meta.json", "assets"},
		{"-o", "old.bpx", "assets"},
		{"-o", "mod.bpx", "modsrc"},
		{"-o", "new.bpx", "modsrc"},
	} {
		if r := runBPXIn(t, dir, append([]string{"pack", "-q", "--section-size", "4096"}, p...)...); r.Code != exitOK {
			t.Fatalf("pack %v: %+v", p, r)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "modsrc")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"keygen", "-o", "modkey"}, {"sign", "--key", "modkey", "mod.bpx"}} {
		if r := runBPXIn(t, dir, args...); r.Code != exitOK {
			t.Fatalf("%v: %+v", args, r)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "modkey.pub"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"trusted.keys": string(pub)})
	writeFiles(t, filepath.Join(dir, "assets"), map[string]string{"textures/new.png": "new"})
	b, err := os.ReadFile(filepath.Join(dir, "mod.bpx"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(dir, "assets"), map[string]string{"ui.bpx": string(b)})
}

// TestExamplesRun runs every help example of the runnable commands, as
// written (globs expanded as a shell would), each in a fresh copy of a
// directory holding the files they name: each must succeed (diff: find a
// difference) and write nothing on standard error.
func TestExamplesRun(t *testing.T) {
	for line := range unrunExamples {
		if c := find(strings.Fields(line)[1]); c == nil || !slices.ContainsFunc(c.Examples, func(ex example) bool { return ex.Line == line }) {
			t.Errorf("unrunExamples names %q, no example", line)
		}
	}
	for _, name := range runnableExamples {
		c := find(name)
		if c == nil {
			t.Fatalf("no command %q", name)
		}
		for _, ex := range c.Examples {
			if unrunExamples[ex.Line] != "" {
				continue
			}
			t.Run(ex.Line, func(t *testing.T) {
				dir := t.TempDir()
				exampleFixture(t, dir)
				t.Chdir(dir)
				if name == "keygen" { // makes the key the fixture made
					os.Remove("modkey")
					os.Remove("modkey.pub")
				}
				var args []string
				for _, w := range strings.Fields(ex.Line)[1:] {
					if m, _ := filepath.Glob(w); strings.ContainsAny(w, "*?[") && len(m) > 0 {
						args = append(args, m...)
					} else {
						args = append(args, w)
					}
				}
				want := exitOK
				if name == "diff" {
					want = 1
				}
				if r := runBPX(t, nil, args...); r.Code != want || r.Stderr != "" {
					t.Fatalf("%s: %+v", ex.Line, r)
				}
				if name == "add" && !slices.Contains(objectNames(t, "game.bpx"), "textures/new.png") {
					t.Errorf("%s did not add textures/new.png: %q", ex.Line, objectNames(t, "game.bpx"))
				}
			})
		}
	}
}
