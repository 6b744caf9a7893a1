package pack_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"log"
	"strings"
	"testing/fstest"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// ExampleWithStableSections packs a tree, then the tree with one file
// changed, and counts the sections of the second package that the first
// does not have: the one that holds the change, and the object table, the
// strings and the object digests.
func ExampleWithStableSections() {
	tree := fstest.MapFS{}
	for i := range 200 {
		tree[fmt.Sprintf("levels/%03d.map", i)] = &fstest.MapFile{Data: []byte(strings.Repeat(fmt.Sprintf("tile %d;", i*7919%1000), 100+i%50))}
	}
	sections := func(m fstest.MapFS) map[[32]byte]bool {
		var buf bytes.Buffer
		w := pack.NewWriter(&buf, pack.WithCompression(bpx.CompressNone), pack.WithSectionSize(16<<10), pack.WithStableSections())
		if err := w.AddFS(m); err != nil {
			log.Fatal(err)
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
		rd, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			log.Fatal(err)
		}
		sums := map[[32]byte]bool{}
		for _, s := range rd.Sections {
			b, err := s.Data()
			if err != nil {
				log.Fatal(err)
			}
			sums[sha256.Sum256(b)] = true
		}
		return sums
	}
	before := sections(tree)
	tree["levels/050.map"] = &fstest.MapFile{Data: []byte("changed")}
	after := sections(tree)
	shared := 0
	for s := range after {
		if before[s] {
			shared++
		}
	}
	fmt.Printf("%d sections, %d differ\n", len(after), len(after)-shared)
	// Output:
	// 37 sections, 4 differ
}
