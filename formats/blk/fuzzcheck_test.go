package blk

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// checkDecoded checks the invariants every decoded tree must keep: it
// renders as text that reads back to it and as JSON, and survives the
// lossless typed JSON.
func checkDecoded(t *testing.T, d *Decoder, b *Block) {
	text, err := b.MarshalText()
	switch {
	case err != nil && !(errors.Is(err, ErrEncode) && hasNullBlock(b)):
		t.Fatalf("text of a decoded tree: %v", err)
	case err == nil:
		fromText, err := ParseText(text)
		if err == nil {
			fromText.Name = b.Name // text has no place for the root's name
		}
		if err != nil || !equalModuloNaN(fromText, b) {
			t.Fatalf("text of a decoded tree does not read back: %v\n%q", err, text)
		}
	}
	if err := WriteJSON(io.Discard, b, MergeDuplicates()); err != nil {
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
	// Whatever decodes must re-encode, and decode to the same tree.
	for _, e := range []*Encoder{{kind: KindFAT}, {kind: KindSlim, nameMap: d.nameMap}} {
		data, err := e.Encode(b)
		if err != nil {
			t.Fatalf("re-encoding a decoded tree as %v: %v", e.kind, err)
		}
		again, err := d.Decode(data)
		if err != nil {
			t.Fatalf("decoding a re-encoded tree (%v): %v", e.kind, err)
		}
		if !Equal(again, b) {
			t.Fatalf("%v round trip changed a decoded tree", e.kind)
		}
	}
}

// generatedSeeds returns generated trees encoded in every kind d can read.
func generatedSeeds(f *testing.F, d *Decoder) [][]byte {
	encs := []*Encoder{{kind: KindFAT}, {kind: KindFATZstd}, {kind: KindSlim, nameMap: d.nameMap}, {kind: KindSlimZstd, nameMap: d.nameMap}}
	if len(d.dicts) > 0 {
		encs = append(encs, &Encoder{kind: KindSlimZstdDict, nameMap: d.nameMap, dict: d.dicts[0]})
	}
	seeds := [][]byte{writeBBF3(bbfTree())}
	for seed := uint64(0); seed < 4; seed++ {
		tree := genTree(seed, genOptions{blocks: 6, params: 3, oddNames: true, nanBits: true, maxDepth: 3})
		for _, e := range encs {
			data, err := e.Encode(tree)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, data)
		}
	}
	return seeds
}

// hasNullBlock reports whether a block below b is named "@null", a name
// text cannot carry.
func hasNullBlock(b *Block) bool {
	for _, c := range b.Blocks {
		if c.Name == "@null" || hasNullBlock(c) {
			return true
		}
	}
	return false
}
