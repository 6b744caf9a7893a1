package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

// TestDiffPatchManyRemovals (issue 24, item 8): bpx diff --patch failed
// with more than 65,025 removals, and from 3,316 on wrote metadata that
// the reference SDK fails to read (Sd(MaxDepthExceeded)). Now the patch
// holds them all in metadata within the reference's container budget,
// and bpx ls -L shows B.
func TestDiffPatchManyRemovals(t *testing.T) {
	n := 70000
	if testing.Short() {
		n = 3316
	}
	dir := t.TempDir()
	pkgA, pkgB, patch := filepath.Join(dir, "a.bpx"), filepath.Join(dir, "b.bpx"), filepath.Join(dir, "patch.bpx")
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("many/f%06d", i))
	}
	writePackage(t, pkgA, append(names, "many/keep"))
	writePackage(t, pkgB, []string{"many/keep"})
	if r := runBPX(t, nil, "diff", "--patch", patch, pkgA, pkgB); r.Code != exitFail || strings.Count(r.Stdout, "\n") != n {
		t.Fatalf("diff --patch: status %d, %d lines, stderr %q", r.Code, strings.Count(r.Stdout, "\n"), r.Stderr)
	}
	p, err := pack.Open(patch)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	data, err := p.Reader.FindSection(pack.SectionMetadata).Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sd.Decode(data, sd.WithContainerBudget(sd.ReferenceMaxDepth)); err != nil {
		t.Fatalf("the reference cannot read the patch's metadata: %v", err)
	}
	if got, err := p.Removed(); err != nil || !slices.Equal(got, names) {
		t.Errorf("patch removes %d names (%v), want %d", len(got), err, n)
	}
	if r := runBPX(t, nil, "ls", "-L", patch, pkgA); r.Code != exitOK || r.Stdout != "many/keep\n" {
		t.Errorf("ls -L patch A: status %d, %.200q", r.Code, r.Stdout)
	}
}

// writePackage writes a package of empty files with the given names.
func writePackage(t *testing.T, name string, files []string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pack.NewWriter(f, pack.WithCompression(bpx.CompressNone))
	for _, n := range files {
		if _, err := w.Create(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
