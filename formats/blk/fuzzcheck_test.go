package blk

import (
	"io"
	"testing"
)

// checkDecoded checks the invariants every decoded tree must keep.
func checkDecoded(t *testing.T, d *Decoder, b *Block) {
	if err := WriteText(io.Discard, b, nil); err != nil {
		t.Fatalf("text of a decoded tree: %v", err)
	}
}

// generatedSeeds returns files made by this package's encoder.
func generatedSeeds(f *testing.F, d *Decoder) [][]byte { return nil }
