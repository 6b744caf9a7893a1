package blk

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx/sd"
)

func sdTrees() []*Block {
	trees := []*Block{sectionTree(), {}}
	for seed := uint64(0); seed < 20; seed++ {
		trees = append(trees, genTree(seed, genOptions{blocks: 20, params: 4, oddNames: true, nanBits: true, maxDepth: 8}))
	}
	// More than 255 params and blocks in one block, and more than 65025
	// params in total, to exercise two levels of chunking.
	trees = append(trees, genTree(5, genOptions{blocks: 3, params: 2, bigBlocks: true, maxDepth: 2}))
	huge := &Block{}
	for i := 0; i < 65535; i++ {
		huge.Add("p", Int(int32(i)))
	}
	return append(trees, huge)
}

func TestSDRoundTrip(t *testing.T) {
	for i, tree := range sdTrees() {
		o, err := ToSD(tree)
		if err != nil {
			t.Fatal(err)
		}
		data, err := sd.Encode(o, sd.WithMaxEncodeDepth(sdMaxDepth))
		if err != nil {
			t.Fatalf("tree %d: sd.Encode: %v", i, err)
		}
		back, err := sd.Decode(data, sd.WithMaxDecodeDepth(sdMaxDepth))
		if err != nil {
			t.Fatalf("tree %d: sd.Decode: %v", i, err)
		}
		got, err := FromSD(back)
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		mustEqual(t, got, tree)
	}
}

// The flat mapping keeps the BPXSD depth at 6: a BLK tree 200 levels deep
// decodes with a BPXSD depth limit of 6.
func TestSDDepthIndependent(t *testing.T) {
	deep := &Block{}
	for c, i := deep, 0; i < 200; i++ {
		c = c.AddBlock("d")
		c.Add("m", Matrix([12]float32{1}))
	}
	o, _ := ToSD(deep)
	data, err := sd.Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := sd.Decode(data, sd.WithMaxDecodeDepth(6))
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromSD(back)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, got, deep)
}

func TestBPXRoundTrip(t *testing.T) {
	for i, tree := range sdTrees()[:5] {
		var buf bytes.Buffer
		if err := WriteBPX(&buf, tree); err != nil {
			t.Fatal(err)
		}
		got, err := ReadBPX(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		mustEqual(t, got, tree)
	}
}

func TestFromSDErrors(t *testing.T) {
	good, _ := ToSD(sectionTree())
	mk := func(f func(o *sd.Object)) *sd.Object {
		o, _ := ToSD(sectionTree())
		f(o)
		return o
	}
	blocks, _ := good.Get("blocks")
	root := blocks.Array()[0].Array()
	for _, tc := range []struct {
		name string
		o    *sd.Object
		what string
	}{
		{"no format", sd.NewObject(), "no format"},
		{"wrong format", mk(func(o *sd.Object) { o.Set("format", sd.String("x")) }), "format \"x\""},
		{"no blocks", mk(func(o *sd.Object) { o.Delete("blocks") }), "no blocks"},
		{"empty", mk(func(o *sd.Object) { o.Set("blocks", sd.Array()) }), "no root"},
		{"too many children", mk(func(o *sd.Object) {
			o.Set("blocks", sd.Array(sd.Array(root[0], root[1], sd.Uint16(9), root[3])))
		}), "claims 9 children"},
		{"orphans", mk(func(o *sd.Object) {
			o.Set("blocks", sd.Array(sd.Array(root[0], root[1], sd.Uint16(0), root[3]), sd.Array(root[0], root[1], sd.Uint16(0), root[3])))
		}), "nobody's children"},
		{"bad param", mk(func(o *sd.Object) {
			o.Set("blocks", sd.Array(sd.Array(root[0], root[1], sd.Uint16(0),
				sd.Array(sd.Array(sd.String("x"), sd.Uint8(byte(TypePoint2)), sd.Array(sd.Float32(1)))))))
		}), "point2 value"},
		{"bad type", mk(func(o *sd.Object) {
			o.Set("blocks", sd.Array(sd.Array(root[0], root[1], sd.Uint16(0),
				sd.Array(sd.Array(sd.String("x"), sd.Uint8(0x0E), sd.Int32(1))))))
		}), "bad type byte"},
	} {
		_, err := FromSD(tc.o)
		if !errors.Is(err, ErrFormat) || !bytes.Contains([]byte(err.Error()), []byte(tc.what)) {
			t.Errorf("%s: %v, want ErrFormat mentioning %q", tc.name, err, tc.what)
		}
	}
}
