package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

// TestPackBlockSize: --block-size cuts sections larger than it into xz
// blocks (0: one block each); the package verifies and every file reads
// back; a size out of range is a usage error.
func TestPackBlockSize(t *testing.T) {
	src := filepath.Join(t.TempDir(), "text")
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat(fmt.Sprintf("line %d of a text file that compresses\n", i), 200+i*13)
	}
	writeFiles(t, src, files)
	blocks := func(pkg string) int {
		rd, err := bpx.OpenReader(pkg)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		most := 0
		for i := range rd.Sections {
			b, err := rd.Sections[i].Blocks()
			if err != nil {
				t.Fatal(err)
			}
			most = max(most, len(b))
		}
		return most
	}
	work := t.TempDir()
	for _, c := range []struct {
		size string
		many bool
	}{{"8192", true}, {"0", false}} {
		pkg := filepath.Join(work, "b"+c.size+".bpx")
		if r := runBPX(t, nil, "pack", "-q", "--section-size", "131072", "--block-size", c.size, "-o", pkg, src); r.Code != exitOK {
			t.Fatalf("pack --block-size %s: %+v", c.size, r)
		}
		if n := blocks(pkg); (n > 1) != c.many {
			t.Errorf("--block-size %s: sections of up to %d blocks", c.size, n)
		}
		if r := runBPX(t, nil, "verify", "-q", pkg); r.Code != exitOK {
			t.Errorf("verify: %+v", r)
		}
		for name, want := range files {
			if r := runBPX(t, nil, "cat", pkg, name); r.Code != exitOK || r.Stdout != want {
				t.Fatalf("cat %s: exit %d, %d bytes", name, r.Code, len(r.Stdout))
			}
		}
	}
	if r := runBPX(t, nil, "pack", "-q", "--block-size", "100", "-o", filepath.Join(work, "x.bpx"), src); r.Code == exitOK {
		t.Errorf("--block-size 100: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(work, "x.bpx")); err == nil {
		t.Error("a failed pack left its output")
	}
}
