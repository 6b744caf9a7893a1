package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestAddStoresCopiesOnce: bpx add stores files that copy each other or
// an object already in the package (under its base name) once, and
// replacing one of the objects that share bytes leaves the others whole.
func TestAddStoresCopiesOnce(t *testing.T) {
	noise := func(seed byte) string {
		b := make([]byte, 20_000)
		rand.NewChaCha8([32]byte{seed}).Read(b)
		return string(b)
	}
	old, fresh := noise(1), noise(2)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFiles(t, src, map[string]string{"old.bin": old, "keep.txt": "keep\n"})
	pkg := filepath.Join(dir, "base.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "-o", pkg, src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	size := func() int64 {
		fi, err := os.Stat(pkg)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	mod := filepath.Join(dir, "mod")
	add := map[string]string{"a/old.bin": old, "a/fresh.bin": fresh, "b/fresh.bin": fresh, "b/old.bin": old}
	writeFiles(t, mod, add)
	if r := runBPX(t, nil, "add", "-c", "none", "-C", mod, pkg, "a", "b/fresh.bin", "b/old.bin"); r.Code != exitOK || r.Stderr != "" {
		t.Fatalf("add: %+v", r)
	}
	// One new file's bytes, a few more for the table and the names; four
	// files' without sharing.
	if grew := size() - before; grew < 20_000 || grew > 21_000 {
		t.Errorf("the package grew by %d bytes, want about 20,000 (one new file)", grew)
	}
	want := map[string]string{"old.bin": old, "keep.txt": "keep\n"}
	for k, v := range add {
		want[k] = v
	}
	if got := unpacked(t, pkg); !equalMaps(got, want) {
		t.Fatalf("after add: %d files, want %d", len(got), len(want))
	}
	// old.bin now shares its bytes with a/old.bin and b/old.bin:
	// replacing it leaves them as they were.
	writeFiles(t, mod, map[string]string{"old.bin": "replaced\n"})
	if r := runBPX(t, nil, "add", "-c", "none", "-C", mod, pkg, "old.bin"); r.Code != exitOK || r.Stderr != "" {
		t.Fatalf("add: %+v", r)
	}
	want["old.bin"] = "replaced\n"
	if got := unpacked(t, pkg); !equalMaps(got, want) {
		t.Fatalf("after replacing old.bin: %d files, want %d", len(got), len(want))
	}
	if r := runBPX(t, nil, "verify", pkg); r.Code != exitOK {
		t.Errorf("verify: %+v", r)
	}
}
