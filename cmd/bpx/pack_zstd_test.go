package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackZstd: "bpx pack -c zstd", the shipping profile, writes a file
// of container version 0x8002 whose sections bpx info names zstd, which
// verifies and unpacks to the same files; "bpx add -c zstd" keeps it so.
func TestPackZstd(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	files := map[string]string{
		"units/elf.cfg": strings.Repeat("[unit]\nid=Elvish Fighter\nhitpoints=33\n[/unit]\n", 400),
		"readme.txt":    "a game\n",
	}
	writeFiles(t, src, files)
	pkg := filepath.Join(dir, "game.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "zstd", "-o", pkg, src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	r := runBPX(t, nil, "info", pkg)
	if r.Code != exitOK || !strings.Contains(r.Stdout, "32770") || !strings.Contains(r.Stdout, "zstd,crc32") {
		t.Fatalf("info: %+v", r)
	}
	if r := runBPX(t, nil, "verify", pkg); r.Code != exitOK {
		t.Fatalf("verify: %+v", r)
	}
	writeFiles(t, filepath.Join(dir, "mod"), map[string]string{"units/orc.cfg": strings.Repeat("[unit]\nid=Orcish Grunt\n[/unit]\n", 300)})
	if r := runBPX(t, nil, "add", "-c", "zstd", "-C", filepath.Join(dir, "mod"), pkg, "units/orc.cfg"); r.Code != exitOK {
		t.Fatalf("add: %+v", r)
	}
	out := filepath.Join(dir, "out")
	if r := runBPX(t, nil, "unpack", "-q", "-C", out, pkg); r.Code != exitOK {
		t.Fatalf("unpack: %+v", r)
	}
	files["units/orc.cfg"] = strings.Repeat("[unit]\nid=Orcish Grunt\n[/unit]\n", 300)
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %v", name, err)
		}
	}
}
