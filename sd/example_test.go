package sd_test

import (
	"fmt"

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

func ExampleDecodeOptions() {
	// An object nested two levels below the root, then trailing bytes.
	data := []byte{1, 1, 0, 0, 0, 0, 0, 0, 0, 14, 1, 2, 0, 0, 0, 0, 0, 0, 0, 14, 0, 0xFF}
	_, n, err := sd.DecodeOptions{}.DecodePrefix(data)
	fmt.Println(n, err)
	_, err = sd.DecodeOptions{MaxDepth: 2}.Decode(data)
	fmt.Println(err)
	// Output:
	// 21 <nil>
	// sd: maximum depth for nested values exceeded (depth 3 > 2) at offset 20
}
