package pack

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/fstest"

	"github.com/gobpx/bpx"
)

// sectionSums returns the SHA-256 of the stored bytes of every section
// of the package b.
func sectionSums(t *testing.T, b []byte) map[[32]byte]bool {
	t.Helper()
	rd, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[[32]byte]bool{}
	for _, s := range rd.Sections {
		raw := make([]byte, s.StoredSize())
		if _, err := s.OpenRaw().ReadAt(raw, 0); err != nil && len(raw) > 0 {
			t.Fatal(err)
		}
		out[sha256.Sum256(raw)] = true
	}
	return out
}

// TestStableSections packs a tree of 600 files and the same tree with
// one file changed, one added and one removed near its start: with
// WithStableSections the second package shares all but the few sections
// around the changes. (Without, sections end where they fill up and the
// ends after a change move until they fall in step again by chance: here
// 9 of 29 sections differ, on x/tools' releases 10 of 12, see
// bench/rebuild.sh.)
func TestStableSections(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	words := []string{"asset", "texture", "mesh", "sound", "level", "script", "shader", "font"}
	tree := fstest.MapFS{}
	for i := range 600 {
		var b bytes.Buffer
		for b.Len() < 1000+rnd.IntN(6000) {
			fmt.Fprintf(&b, "%s %d %s\n", words[rnd.IntN(len(words))], rnd.IntN(1000), words[rnd.IntN(len(words))])
		}
		tree[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = &fstest.MapFile{Data: b.Bytes()}
	}
	changed := fstest.MapFS{}
	for k, v := range tree {
		changed[k] = v
	}
	changed["d01/f001.txt"] = &fstest.MapFile{Data: append(bytes.Clone(tree["d01/f001.txt"].Data), "patched\n"...)}
	changed["d02/f002b.txt"] = &fstest.MapFile{Data: []byte("a new file\n")}
	delete(changed, "d03/f003.txt")

	for _, stable := range []bool{false, true} {
		opts := []WriterOption{WithSectionSize(32 << 10), WithMaxSections(0), compressAll()}
		if stable {
			opts = append(opts, WithStableSections())
		}
		a, b := pkgBytes(t, tree, opts...), pkgBytes(t, changed, opts...)
		sa, sb := sectionSums(t, a), sectionSums(t, b)
		differ := 0
		for s := range sb {
			if !sa[s] {
				differ++
			}
		}
		t.Logf("stable %v: %d of %d sections differ", stable, differ, len(sb))
		if stable && differ > 8 { // three changes, up to two sections each, and the tables
			t.Errorf("stable sections: %d of %d sections differ", differ, len(sb))
		}
		// The package reads as the tree.
		p := openBytes(t, b)
		if got, err := p.ReadFile("d01/f001.txt"); err != nil || !bytes.Equal(got, changed["d01/f001.txt"].Data) {
			t.Fatalf("ReadFile: %v", err)
		}
	}
}
