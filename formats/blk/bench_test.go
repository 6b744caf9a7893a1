package blk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchTree is a large document shaped like game data: nested blocks of
// 4 to 12 params each, every type, realistic small values, repeated names.
func benchTree(blocks int) *Block {
	r := rand.New(rand.NewPCG(7, 7))
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("param_%d", i)
	}
	f := func() float32 { return float32(r.IntN(200000)-100000) / 100 }
	i32 := func() int32 { return int32(r.IntN(20000) - 10000) }
	root := &Block{}
	all := []*Block{root}
	for n := 0; n < blocks; n++ {
		b := all[r.IntN(len(all))].AddBlock(names[r.IntN(40)])
		all = append(all, b)
		for k := 4 + r.IntN(9); k > 0; k-- {
			var v Value
			switch Type(1 + r.IntN(13)) {
			case TypeString:
				v = Str(names[r.IntN(len(names))] + "_value")
			case TypeInt:
				v = Int(i32())
			case TypeReal:
				v = Real(f())
			case TypePoint2:
				v = Point2(f(), f())
			case TypePoint3:
				v = Point3(f(), f(), f())
			case TypePoint4:
				v = Point4(f(), f(), f(), f())
			case TypeIPoint2:
				v = IPoint2(i32(), i32())
			case TypeIPoint3:
				v = IPoint3(i32(), i32(), i32())
			case TypeIPoint4:
				v = IPoint4(i32(), i32(), i32(), i32())
			case TypeBool:
				v = Bool(r.IntN(2) == 0)
			case TypeColor:
				v = ColorValue(Color{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255})
			case TypeMatrix:
				v = Matrix([12]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, f(), f(), f()})
			case TypeInt64:
				v = Int64(int64(r.Uint32()) << 8)
			}
			b.Add(names[r.IntN(len(names))], v)
		}
	}
	return root
}

// BenchmarkDecode compares decoding one large document from binary BLK
// with encoding/json decoding the same document's JSON (wt_blk's merged
// form, the one data miners publish). Compare ns/op: it is the time to
// load the same document; MB/s differ because the inputs differ in size.
func BenchmarkDecode(b *testing.B) {
	tree := benchTree(20000)
	bin, err := Encode(tree, KindFAT)
	if err != nil {
		b.Fatal(err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, tree, MergeDuplicates()); err != nil {
		b.Fatal(err)
	}
	b.Run("blk-binary", func(b *testing.B) {
		b.SetBytes(int64(len(bin)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := Decode(bin); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(js.Len()))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.Unmarshal(js.Bytes(), &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeRatio decodes the document both ways in each iteration
// and reports the speed-up of binary BLK over encoding/json as the metric
// "x-faster" (the target is at least 5).
func BenchmarkDecodeRatio(b *testing.B) {
	tree := benchTree(20000)
	bin, err := Encode(tree, KindFAT)
	if err != nil {
		b.Fatal(err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, tree, MergeDuplicates()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(bin)))
	var tBin, tJSON time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := Decode(bin); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var v any
		if err := json.Unmarshal(js.Bytes(), &v); err != nil {
			b.Fatal(err)
		}
		tBin, tJSON = tBin+t1.Sub(t0), tJSON+time.Since(t1)
	}
	b.ReportMetric(float64(tJSON)/float64(tBin), "x-faster")
}

// BenchmarkEncode measures writing the same document as FAT.
func BenchmarkEncode(b *testing.B) {
	tree := benchTree(20000)
	bin, _ := Encode(tree, KindFAT)
	b.SetBytes(int64(len(bin)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Encode(tree, KindFAT); err != nil {
			b.Fatal(err)
		}
	}
}
