package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackFlags covers the TypeExt and metadata flags, the default output
// name, JSON listing and extracting selected paths.
func TestPackFlags(t *testing.T) {
	src := filepath.Join(t.TempDir(), "assets")
	writeFiles(t, src, roundTripFiles)
	meta := filepath.Join(t.TempDir(), "meta.json")
	os.WriteFile(meta, []byte(`{"name": "demo", "version": 3, "tags": ["a", "b"]}`), 0o644)
	work := t.TempDir()
	cmd := runBPXIn(t, work, "pack", "--arch", "aarch64", "--platform", "windows", "--meta", meta, src)
	if cmd.Code != exitOK {
		t.Fatalf("pack: %+v", cmd)
	}
	pkg := filepath.Join(work, "assets.bpx") // default output name
	r := runBPX(t, nil, "info", pkg)
	if r.Code != exitOK || !strings.Contains(r.Stdout, "architecture aarch64, platform Windows") {
		t.Errorf("info: %s", r.Stdout)
	}
	r = runBPX(t, nil, "sd", pkg)
	if r.Code != exitOK || !strings.Contains(r.Stdout, `"name": "demo"`) || !strings.Contains(r.Stdout, `"version": 3`) {
		t.Errorf("metadata: %+v", r)
	}
	r = runBPX(t, nil, "ls", "--json", pkg)
	var list []struct {
		Path string `json:"path"`
		Size int    `json:"size"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != len(roundTripFiles) {
		t.Fatalf("ls --json: %v %s", err, r.Stdout)
	}
	for _, o := range list {
		if want, ok := roundTripFiles[o.Path]; !ok || len(want) != o.Size {
			t.Errorf("ls --json entry %+v", o)
		}
	}
	out := t.TempDir()
	r = runBPX(t, nil, "unpack", "-q", "-C", out, pkg, "readme.txt", "textures")
	if r.Code != exitOK {
		t.Fatalf("unpack paths: %+v", r)
	}
	got := readFiles(t, out)
	if len(got) != 2 || got["readme.txt"] != "hello\n" || got["textures/a/b/c.png"] != roundTripFiles["textures/a/b/c.png"] {
		t.Errorf("unpack selected %v", got)
	}
	r = runBPX(t, nil, "unpack", "-q", "-C", t.TempDir(), pkg, "no/such/file")
	if r.Code != exitFail {
		t.Errorf("unpack missing path: %+v", r)
	}
	checkOneLineError(t, r)
	for _, args := range [][]string{
		{"pack", "--arch", "sparc", src}, {"pack", "--platform", "beos", src}, {"pack", "-c", "lz4", src}, {"pack"},
		{"pack", "-l", "ultra", src}, {"repack", "-l", "9", pkg},
	} {
		if r := runBPXIn(t, work, args...); r.Code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, r.Code, exitUsage)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[1, 2]`), 0o644)
	if r := runBPXIn(t, work, "pack", "-o", filepath.Join(work, "x.bpx"), "--meta", bad, src); r.Code != exitFail {
		t.Errorf("bad metadata: %+v", r)
	}
}

// TestPackLevels: every level makes a package that verifies and unpacks to
// the same files, and the editing commands take -l too.
func TestPackLevels(t *testing.T) {
	src := filepath.Join(t.TempDir(), "assets")
	writeFiles(t, src, roundTripFiles)
	for _, l := range []string{"fast", "default", "max"} {
		pkg := filepath.Join(t.TempDir(), l+".bpx")
		if r := runBPX(t, nil, "pack", "-q", "-l", l, "-o", pkg, src); r.Code != exitOK {
			t.Fatalf("pack -l %s: %+v", l, r)
		}
		if r := runBPX(t, nil, "verify", "-q", pkg); r.Code != exitOK {
			t.Errorf("verify of pack -l %s: %+v", l, r)
		}
		out := t.TempDir()
		if r := runBPX(t, nil, "unpack", "-q", "-C", out, pkg); r.Code != exitOK {
			t.Fatalf("unpack of pack -l %s: %+v", l, r)
		}
		got := readFiles(t, out)
		for name, want := range roundTripFiles {
			if got[name] != want {
				t.Errorf("-l %s: %s differs after unpack", l, name)
			}
		}
		// The level reaches the editing commands too.
		if r := runBPX(t, nil, "repack", "--all", "-l", l, pkg); r.Code != exitOK {
			t.Errorf("repack --all -l %s: %+v", l, r)
		}
	}
}
