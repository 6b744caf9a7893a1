package pack_test

import (
	"fmt"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

// manyRemovalsTrees returns trees A and B such that the patch from A to B
// removes n files one by one (their directory stays, holding keep), plus
// the directory gone, whose files all go, as one name.
func manyRemovalsTrees(n int) (a, b fstest.MapFS) {
	a = fstest.MapFS{
		"many/keep":  {Data: []byte("k")},
		"gone/1":     {Data: []byte("1")},
		"gone/sub/2": {},
		"same.txt":   {Data: []byte("s")},
	}
	for i := range n {
		a[fmt.Sprintf("many/f%06d", i)] = &fstest.MapFile{}
	}
	b = fstest.MapFS{
		"many/keep": {Data: []byte("k")},
		"same.txt":  {Data: []byte("s")},
		"new.txt":   {Data: []byte("n")},
	}
	return a, b
}

// TestWritePatchManyRemovals (issue 24, item 8): a patch removing more
// than 65,025 names failed to write (ErrTooLarge), and one removing 3,316
// or more wrote metadata the reference SDK cannot read (its container
// budget of 16). Now the patch holds any number of removals in metadata
// the reference reads, a directory whose files all go is removed as one
// name, and the patch layered over A shows B.
func TestWritePatchManyRemovals(t *testing.T) {
	n := 70000
	if testing.Short() {
		n = 3316
	}
	ta, tb := manyRemovalsTrees(n)
	a := packOfTree(t, ta, pack.WithCompression(bpx.CompressNone))
	patch, _ := patchOf(t, a, tb)
	checkReferenceMetadata(t, patch)
	removed, err := patch.Removed()
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != n+1 || !slices.Contains(removed, "gone") || slices.Contains(removed, "gone/1") {
		t.Errorf("Removed() holds %d names (gone: %v), want %d files and the directory gone once", len(removed), slices.Contains(removed, "gone"), n)
	}
	stack, err := overlay.New(a, patch)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := files(t, stack), files(t, tb); !mapsEqual(got, want) {
		t.Errorf("A + patch = %v, want %v", keysOf(got), keysOf(want))
	}
}

// checkReferenceMetadata fails unless p's metadata decodes under the
// reference SDK's rule for package metadata: fewer than 16 Arrays and
// Objects in all.
func checkReferenceMetadata(t *testing.T, p *pack.Package) {
	t.Helper()
	s := p.Reader.FindSection(pack.SectionMetadata)
	if s == nil {
		t.Fatal("no metadata section")
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sd.Decode(data, sd.WithContainerBudget(sd.ReferenceMaxDepth)); err != nil {
		t.Fatalf("the reference cannot read the metadata: %v", err)
	}
}

func keysOf(m map[string]string) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}
