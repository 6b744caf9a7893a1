package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// sectionsOf returns the number of sections of the file name.
func sectionsOf(t *testing.T, name string) int {
	t.Helper()
	rc, err := bpx.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	return len(rc.Sections)
}

// TestSectionLimit: issue 24 item 1. bpx pack of 338 files of the section
// size made 340 sections, which the reference SDK cannot read through a
// buffered reader; pack now stays within 339, --max-sections 0 lifts the
// limit, verify warns about a package over it, and repack brings one back.
func TestSectionLimit(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewChaCha8([32]byte{24}))
	files := map[string]string{}
	for i := range 338 {
		b := make([]byte, 1024)
		for j := range b {
			b[j] = byte(rnd.Uint32())
		}
		files[fmt.Sprintf("f%03d.bin", i)] = string(b)
	}
	src := filepath.Join(dir, "src")
	writeFiles(t, src, files)

	pkg := filepath.Join(dir, "fits.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "--section-size", "1024", "-o", pkg, src); r.Code != exitOK {
		t.Fatalf("pack: %+v", r)
	}
	if n := sectionsOf(t, pkg); n > bpx.ReferenceMaxSections {
		t.Fatalf("pack: %d sections", n)
	}
	if r := runBPX(t, nil, "verify", "-q", pkg); r.Code != exitOK || strings.Contains(r.Stderr, "warning") {
		t.Fatalf("verify: %+v", r)
	}

	over := filepath.Join(dir, "over.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "--section-size", "1024", "--max-sections", "0", "-o", over, src); r.Code != exitOK {
		t.Fatalf("pack --max-sections 0: %+v", r)
	}
	// 338 data sections, the object table, the strings, the object
	// digests and the files' times.
	if n := sectionsOf(t, over); n != 342 {
		t.Fatalf("pack --max-sections 0: %d sections, want 342", n)
	}
	r := runBPX(t, nil, "verify", "-q", over)
	if r.Code != exitOK || !strings.Contains(r.Stderr, "warning: 342 sections") {
		t.Fatalf("verify of 342 sections: %+v", r)
	}
	// Signing adds a section: bpx sign warns, as verify does.
	key := filepath.Join(dir, "key")
	if r := runBPX(t, nil, "keygen", "-o", key); r.Code != exitOK {
		t.Fatalf("keygen: %+v", r)
	}
	signed := filepath.Join(dir, "signed.bpx")
	if r := runBPX(t, nil, "sign", "--key", key, "-o", signed, over); r.Code != exitOK || !strings.Contains(r.Stderr, "warning: 343 sections") {
		t.Fatalf("sign of 342 sections: %+v", r)
	}
	// A package packed with room for the signature signs without one.
	roomy := filepath.Join(dir, "roomy.bpx")
	if r := runBPX(t, nil, "pack", "-q", "-c", "none", "--section-size", "1024", "--max-sections", "338", "-o", roomy, src); r.Code != exitOK {
		t.Fatalf("pack --max-sections 338: %+v", r)
	}
	if r := runBPX(t, nil, "sign", "--key", key, "-o", signed, roomy); r.Code != exitOK || strings.Contains(r.Stderr, "warning") {
		t.Fatalf("sign of %d sections: %+v", sectionsOf(t, roomy), r)
	}
	if r := runBPX(t, nil, "repack", "-c", "none", over); r.Code != exitOK {
		t.Fatalf("repack: %+v", r)
	}
	if n := sectionsOf(t, over); n > bpx.ReferenceMaxSections {
		t.Fatalf("repack: %d sections", n)
	}
	if got := unpacked(t, over); len(got) != len(files) {
		t.Fatalf("repack: %d files, want %d", len(got), len(files))
	} else {
		for k, v := range files {
			if got[k] != v {
				t.Fatalf("repack: %s differs", k)
			}
		}
	}
}
