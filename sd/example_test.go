package sd_test

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gobpx/bpx/sd"
)

func Example() {
	meta := sd.NewObject().
		Set("name", sd.String("multi")).
		Set("version", sd.Uint32(3)).
		Set("tags", sd.Array(sd.String("a"), sd.String("b")))
	data, err := sd.Encode(meta)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(data), "bytes")

	back, err := sd.Decode(data)
	if err != nil {
		panic(err)
	}
	v, _ := back.Get("version")
	n, _ := v.AsUint()
	fmt.Println(v.Kind(), n)
	for h, v := range back.All() {
		fmt.Printf("%#016x %v\n", h, v)
	}
	// Output:
	// 45 bytes
	// u32 3
	// 0x000000017c9b0c46 "multi"
	// 0x0000d0b773006c4b u32(3)
	// 0x000000017c9e55d4 [2 elements]
}

func ExampleWithMaxDecodeDepth() {
	// An object nested two levels below the root, then trailing bytes.
	data := []byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 14, 1, 2, 0, 0, 0, 0, 0, 0, 0, 14, 0, 0xFF}
	_, n, err := sd.DecodePrefix(data)
	fmt.Println(n, err)
	_, err = sd.Decode(data, sd.WithMaxDecodeDepth(2))
	fmt.Println(err)
	// Output:
	// 21 <nil>
	// sd: maximum depth for nested values exceeded (depth 3 > 2) at offset 20
}

func ExampleMarshal() {
	type Meta struct {
		Name    string   `sd:"name"`
		Version uint32   `sd:"version"`
		Tags    []string `sd:"tags,omitempty"`
		Size    int16    `sd:"size,omitempty"`
	}
	data, err := sd.Marshal(Meta{Name: "multi", Version: 3, Tags: []string{"a", "b"}})
	if err != nil {
		panic(err)
	}
	o, _ := sd.Decode(data)
	typed, _ := sd.MarshalTypedJSON(o) // names are not stored on the wire
	fmt.Println(string(typed))

	var m Meta
	if err := sd.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", m)

	var wrong struct {
		Name int `sd:"name"`
	}
	fmt.Println(sd.Unmarshal(data, &wrong))

	data[len(data)-2] = 0xFF // break the last string's UTF-8
	fmt.Println(sd.Unmarshal(data, &m))
	// Output:
	// {"#000000017c9b0c46":"multi","#0000d0b773006c4b":{"u32":3},"#000000017c9e55d4":["a","b"]}
	// {Name:multi Version:3 Tags:[a b] Size:0}
	// sd: cannot unmarshal string into Go value of type int at .name
	// sd: invalid string (not UTF-8) at offset 43
}

func ExampleWithDebugNames() {
	meta := sd.NewObject().Set("name", sd.String("sample-package"))
	data, _ := sd.Encode(meta, sd.WithDebugNames())
	o, _ := sd.Decode(data)
	plain, _ := o.MarshalJSON()
	typed, _ := sd.MarshalTypedJSON(o)
	fmt.Println(string(plain))
	fmt.Println(string(typed))
	// Output:
	// {"name":"sample-package"}
	// {"name":"sample-package","__debug__":["name"]}
}

func ExampleMarshalTypedJSON() {
	o := sd.NewObject().
		Set("zero", sd.Float32(float32(math.Copysign(0, -1)))).
		Set("nan", sd.Float64(math.NaN())).
		Set("big", sd.Uint64(math.MaxUint64)).
		SetHash(0xabc, sd.Array(sd.Int8(-1), sd.Null()))
	typed, _ := sd.MarshalTypedJSON(o)
	fmt.Println(string(typed))

	back, _ := sd.UnmarshalTypedJSON(typed)
	fmt.Println(back.Equal(o))
	plain, _ := json.Marshal(o)
	fmt.Println(string(plain))
	// Output:
	// {"zero":{"f32":-0},"nan":{"f64":"NaN:0x7ff8000000000001"},"big":{"u64":18446744073709551615},"#0000000000000abc":[{"i8":-1},null]}
	// true
	// {"zero":-0,"nan":"NaN","big":18446744073709551615,"#0000000000000abc":[-1,null]}
}
