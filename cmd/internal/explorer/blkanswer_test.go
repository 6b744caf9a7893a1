package explorer

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gobpx/bpx/formats/blk"
)

// TestBLKAnswerBounded: a binary BLK file names its params from a table,
// so a long name used by many params is stored once and written once per
// use: its text or JSON can be far larger than the file and its tree. The
// answer is refused (413) at its share of the budget, and building it
// allocates no more than the whole share: the encoder must not build the
// whole answer first.
func TestBLKAnswerBounded(t *testing.T) {
	name := strings.Repeat("n", 4<<10)
	tree := &blk.Block{}
	for range 20_000 {
		tree.Add(name, blk.Int(1))
	}
	bin, err := blk.Encode(tree, blk.KindFAT)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("game.bpx", packBytes(t, map[string]string{"big.blk": string(bin)}, nil))})
	cost := int64(blkBinaryFactor * blkAnswerFactor * len(bin))
	for _, as := range []string{"json", "text"} {
		u := "/api/blk?path=big.blk&as=" + as
		code, a := serveAllocated(s, u)
		t.Logf("%s: file %d bytes, status %d, allocated %d bytes, share %d", u, len(bin), code, a, cost)
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: status %d, want 413", u, code)
		}
		if int64(a) > cost {
			t.Errorf("%s: allocated %d bytes, above its share of the budget (%d)", u, a, cost)
		}
	}
}
