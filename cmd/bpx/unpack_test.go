package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnpackSamples: good samples extract, malformed ones fail in one line
// without leaving truncated files.
func TestUnpackSamples(t *testing.T) {
	dir := filepath.Join(samplesDir(t), "bpx")
	out := t.TempDir()
	r := runBPX(t, nil, "unpack", "-q", "-C", out, filepath.Join(dir, "real", "fpkg_BPXTools_test_available_test.bpx"))
	if r.Code != 0 {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(filepath.Join(out, "LICENSE.txt"))
	if err != nil || len(b) != 1517 || !strings.HasPrefix(string(b), "Copyright (c) 20") {
		t.Errorf("LICENSE.txt: %d bytes, %v", len(b), err)
	}
	for name, msg := range map[string]string{
		"pkg_size_beyond_data.bpx":      "short of the object's size 50",
		"pkg_offset_beyond_section.bpx": "offset 100 is beyond the end of section 2",
		"pkg_missing_start_section.bpx": "start section 9 does not exist",
	} {
		out := t.TempDir()
		r := runBPX(t, nil, "unpack", "-q", "-C", out, filepath.Join(dir, "synthetic", name))
		if r.Code != exitFail || !strings.Contains(r.Stderr, msg) {
			t.Errorf("%s: %+v", name, r)
		}
		checkOneLineError(t, r)
		for file, data := range readFiles(t, out) {
			if data != "AAAAA" { // only a complete a.txt may exist
				t.Errorf("%s: %s left behind with %q", name, file, data)
			}
		}
	}
}

// TestUnpackRefusesSymlinkEscape: a symlink in the target leading outside
// is never written through.
func TestUnpackRefusesSymlinkEscape(t *testing.T) {
	src, tmp, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, src, map[string]string{"assets/x.txt": "x"})
	pkg := filepath.Join(tmp, "p.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-o", pkg, src); r.Code != 0 {
		t.Fatalf("%+v", r)
	}
	out := filepath.Join(tmp, "out")
	os.MkdirAll(out, 0o755)
	if err := os.Symlink(outside, filepath.Join(out, "assets")); err != nil {
		t.Skip(err)
	}
	r := runBPX(t, nil, "unpack", "-q", "-C", out, pkg)
	if r.Code != exitFail {
		t.Errorf("unpack through a symlink: %+v", r)
	}
	checkOneLineError(t, r)
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote outside the target: %v", ents)
	}
}

// TestUnpackTruncatedLeavesNothing: a package cut short fails before
// anything is created, the target directory included, with or without
// layers, unless a layer above shadows its damaged objects: only what the
// stack shows is checked.
func TestUnpackTruncatedLeavesNothing(t *testing.T) {
	src, tmp := t.TempDir(), t.TempDir()
	writeFiles(t, src, roundTripFiles)
	pkg := filepath.Join(tmp, "p.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "-o", pkg, src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	b, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(tmp, "cut.bpx")
	if err := os.WriteFile(cut, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	// A mod that adds a file and shadows none of the cut base's.
	extra, mod := t.TempDir(), filepath.Join(tmp, "mod.bpx")
	writeFiles(t, extra, map[string]string{"extra.txt": "extra\n"})
	if r := runBPX(t, nil, "pack", "-q", "-o", mod, extra); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	for _, args := range [][]string{{cut}, {"-L", cut, pkg}, {"-L", mod, cut}} {
		out := filepath.Join(t.TempDir(), "out")
		r := runBPX(t, nil, append([]string{"unpack", "-q", "-C", out}, args...)...)
		if r.Code != exitFail || !strings.Contains(r.Stderr, "beyond the end of the") {
			t.Errorf("%v: %+v", args, r)
		}
		checkOneLineError(t, r)
		if _, err := os.Lstat(out); !os.IsNotExist(err) {
			t.Errorf("%v: the target directory was created (%v)", args, err)
		}
	}
	// The intact package over the cut one shows every file from the top:
	// nothing damaged is read, so all unpacks.
	out := filepath.Join(t.TempDir(), "out")
	if r := runBPX(t, nil, "unpack", "-q", "-C", out, "-L", pkg, cut); r.Code != exitOK {
		t.Fatalf("unpack of a shadowed cut base: %+v", r)
	}
	for name, want := range roundTripFiles {
		if got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name))); err != nil || string(got) != want {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
	}
}
