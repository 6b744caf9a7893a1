package blk

import "testing"

// BenchmarkParseText reads the canonical text (WriteText, CRLF) of the
// large game-like document of the other benchmarks.
func BenchmarkParseText(b *testing.B) {
	tree := benchTree(20000)
	text, err := tree.MarshalText()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseText(text); err != nil {
			b.Fatal(err)
		}
	}
}
