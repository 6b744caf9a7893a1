package blk

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx/internal/samples"
)

// samplesDir returns the shared BLK samples folder or skips the test.
func samplesDir(t testing.TB) string { return samples.Dir(t, "blk") }

func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(samplesDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const sampleDict = "bfb732560ad45234690acad246d7b14c2f25ad418a146e5e7ef68ba3386a315c.dict"

// sampleDecoder returns a Decoder with the sample nm and dictionary.
func sampleDecoder(t testing.TB) *Decoder {
	t.Helper()
	nm, err := ParseNameMap(readSample(t, "nm"))
	if err != nil {
		t.Fatal(err)
	}
	return &Decoder{nameMap: nm, dicts: [][]byte{readSample(t, sampleDict)}}
}

// sectionTree is the tree every "section" sample encodes (samples README).
func sectionTree() *Block {
	root := &Block{}
	root.Add("vec4f", Point4(1.25, 2.5, 5, 10)).
		Add("int", Int(42)).
		Add("long", Int64(64))
	alpha := root.AddBlock("alpha")
	alpha.Add("str", Str("hello")).
		Add("bool", Bool(true)).
		Add("color", ColorValue(Color{R: 1, G: 2, B: 3, A: 4}))
	alpha.AddBlock("gamma").
		Add("vec2i", IPoint2(3, 4)).
		Add("vec2f", Point2(1.25, 2.5)).
		Add("transform", Matrix([12]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1.25, 2.5, 5}))
	root.AddBlock("beta").
		Add("float", Real(1.25)).
		Add("vec2i", IPoint2(1, 2)).
		Add("vec3f", Point3(1.25, 2.5, 5))
	return root
}

// mustEqual fails the test when got and want differ, showing the first
// difference in text form.
func mustEqual(t testing.TB, got, want *Block) {
	t.Helper()
	if !Equal(got, want) {
		g, w := strings.Split(debugTyped(got), "\n"), strings.Split(debugTyped(want), "\n")
		for i := 0; i < len(g) && i < len(w); i++ {
			if g[i] != w[i] {
				t.Fatalf("tree mismatch at typed JSON line %d:\ngot:  %s\nwant: %s", i+1, g[i], w[i])
			}
		}
		t.Fatalf("tree mismatch: %d vs %d typed JSON lines", len(g), len(w))
	}
}

// otherDict returns the sample dictionary with a different dictionary ID.
func otherDict(t testing.TB) []byte {
	d := append([]byte(nil), readSample(t, sampleDict)...)
	d[4] ^= 0xFF
	return d
}

func debugTyped(b *Block) string {
	var buf bytes.Buffer
	WriteTypedJSON(&buf, b)
	return buf.String()
}
