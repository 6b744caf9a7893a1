package blk_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/gobpx/bpx/formats/blk"
)

func example() *blk.Block {
	root := &blk.Block{}
	root.Add("speed", blk.Real(12.5)).Add("name", blk.Str("tank"))
	gun := root.AddBlock("weapon")
	gun.Add("caliber", blk.Int(75)).Add("color", blk.ColorValue(blk.Color{R: 255, G: 128, B: 0, A: 255}))
	root.AddBlock("weapon").Add("caliber", blk.Int(12))
	return root
}

func ExampleDecode() {
	data, err := blk.Encode(example(), blk.KindFAT)
	if err != nil {
		panic(err)
	}
	root, err := blk.Decode(data)
	if err != nil {
		panic(err)
	}
	speed, _ := root.Lookup("speed")
	second, _ := root.Lookup("weapon[1]/caliber")
	fmt.Println(speed.Real(), second.Int())
	// Output: 12.5 12
}

func ExampleEncoder() {
	nm := &blk.NameMap{Names: []string{"speed", "name", "weapon", "caliber"}}
	enc, err := blk.NewEncoder(blk.KindSlimZstd, blk.WithNameMap(nm))
	if err != nil {
		panic(err)
	}
	data, err := enc.Encode(example())
	if err != nil {
		panic(err)
	}
	dec, err := blk.NewDecoder(blk.WithNameMap(nm))
	if err != nil {
		panic(err)
	}
	root, err := dec.Decode(data)
	if err != nil {
		panic(err)
	}
	fmt.Println(blk.Kind(data[0]), blk.Equal(root, example()))
	// Output: SLIM_ZST true
}

func ExampleWriteText() {
	blk.WriteText(os.Stdout, example(), blk.LFLineEnds())
	// Output:
	// speed:r=12.5
	// name:t="tank"
	//
	// weapon{
	//   caliber:i=75
	//   color:c=255, 128, 0, 255
	// }
	//
	// weapon{
	//   caliber:i=12
	// }
}

func ExampleWriteJSON() {
	blk.WriteJSON(os.Stdout, example(), blk.MergeDuplicates())
	// Output:
	// {
	//   "speed": 12.5,
	//   "name": "tank",
	//   "weapon": [
	//     {
	//       "caliber": 75,
	//       "color": [
	//         0,
	//         128,
	//         255,
	//         255
	//       ]
	//     },
	//     {
	//       "caliber": 12
	//     }
	//   ]
	// }
}

func ExampleParseText() {
	root, err := blk.ParseText([]byte("a:i=0x10\nb{ c:p2=1, 2.5 }\n"))
	if err != nil {
		panic(err)
	}
	c, _ := root.Lookup("b/c")
	a, _ := root.Param("a")
	fmt.Println(a.Int(), c.Floats())
	// Output: 16 [1 2.5]
}

// Arrays become repeated params; directives such as "@override:" stay data
// and are written back as they were read.
func ExampleParseText_arraysAndDirectives() {
	src := `include "base.blk"
ammo:i[]=[10; 20; 30;]
"@override:weapon"{ "@delete:ammo":i=0 }
`
	root, err := blk.ParseText([]byte(src))
	if err != nil {
		panic(err)
	}
	for _, p := range root.Params {
		fmt.Println(p.Name, p.Value.Type(), p.Value.Str(), p.Value.Int())
	}
	blk.WriteText(os.Stdout, root, blk.LFLineEnds())
	// Output:
	// @include string base.blk 0
	// ammo int  10
	// ammo int  20
	// ammo int  30
	// include "base.blk"
	// ammo:i=10
	// ammo:i=20
	// ammo:i=30
	//
	// "@override:weapon"{
	//   "@delete:ammo":i=0
	// }
}

// A body stored without its kind byte decodes when the kind is known.
func ExampleDecoder_DecodeBody() {
	root := &blk.Block{}
	root.Add("speed", blk.Real(2.5))
	file, err := blk.Encode(root, blk.KindFAT)
	if err != nil {
		panic(err)
	}
	var d blk.Decoder
	back, err := d.DecodeBody(blk.KindFAT, file[1:])
	if err != nil {
		panic(err)
	}
	v, _ := back.Param("speed")
	fmt.Println(v.Real())
	// Output: 2.5
}

func ExampleWriteTypedJSON() {
	var buf bytes.Buffer
	blk.WriteTypedJSON(&buf, example())
	back, err := blk.ParseTypedJSON(buf.Bytes())
	fmt.Println(err, blk.Equal(back, example()))
	// Output: <nil> true
}

func ExampleWriteBPX() {
	var buf bytes.Buffer
	if err := blk.WriteBPX(&buf, example()); err != nil {
		panic(err)
	}
	back, err := blk.ReadBPX(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	fmt.Println(err, blk.Equal(back, example()))
	// Output: <nil> true
}
