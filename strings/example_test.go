package strings_test

import (
	"fmt"

	bpxstrings "github.com/gobpx/bpx/strings"
)

func Example() {
	var b bpxstrings.Builder
	hello, _ := b.Add("hello.txt")
	dir, _ := b.Add("dir/empty.bin")
	again, _ := b.Add("hello.txt") // stored once
	fmt.Println(hello, dir, again, b.Len())

	tab := bpxstrings.NewTable(b.Bytes())
	name, err := tab.Get(dir)
	fmt.Println(name, err)
	_, err = tab.Get(100)
	fmt.Println(err)
	// Output:
	// 0 10 0 24
	// dir/empty.bin <nil>
	// strings: offset out of range at offset 100
}
