package table_test

import (
	"fmt"
	"os"

	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// Build a table section and its names, then read it back.
func Example() {
	var names bpxstrings.Builder
	b, err := table.NewBuilder(&names, "items", []table.Column{
		{Name: "id", Type: table.Uint32, Len: 1},
		{Name: "name", Type: table.Varchar, Len: 8},
		{Name: "pos", Type: table.Float32, Len: 2},
	})
	if err != nil {
		panic(err)
	}
	b.Append(1, "sword", []float32{1.5, -2})
	b.Append(2, "shield", []float32{0, 3})
	b.Append(3, "potion", []float32{4, 4})
	b.SetFree(1, true) // delete the shield

	tb, err := table.Decode(b.Bytes(), bpxstrings.NewTable(names.Bytes()))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d live rows of %d, stride %d\n", tb.Name, tb.Len(), tb.NumSlots(), tb.Stride())
	for slot, r := range tb.Rows() {
		id, _ := r.Uint("id")
		name, _ := r.String("name")
		pos, _ := r.Value("pos")
		fmt.Println(slot, id, name, pos)
	}
	// Output:
	// items: 2 live rows of 3, stride 32
	// 0 1 sword [1.5 -2]
	// 2 3 potion [4 4]
}

func ExampleRow_Unmarshal() {
	var names bpxstrings.Builder
	b, _ := table.NewBuilder(&names, "players", []table.Column{
		{Name: "name", Type: table.Varchar, Len: 16},
		{Name: "level", Type: table.Uint8, Len: 1},
	})
	b.Append("ann", uint8(12))
	tb, _ := table.Decode(b.Bytes(), bpxstrings.NewTable(names.Bytes()))

	type player struct {
		Name  string `table:"name"`
		Level int    `table:"level"`
	}
	var p player
	if err := tb.Row(0).Unmarshal(&p); err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", p)
	// Output: {Name:ann Level:12}
}

func ExampleTable_WriteJSON() {
	var names bpxstrings.Builder
	b, _ := table.NewBuilder(&names, "t", []table.Column{
		{Name: "k", Type: table.Varchar, Len: 4},
		{Name: "v", Type: table.Float64, Len: 1},
		{Name: "tags", Type: table.Bool, Len: 2},
	})
	b.Append("a", 0.1, []bool{true, false})
	b.Append("b\"", -2.5, []bool{false, false})
	tb, _ := table.Decode(b.Bytes(), bpxstrings.NewTable(names.Bytes()))
	tb.WriteJSON(os.Stdout)
	// Output:
	// [
	// {"k":"a","v":0.1,"tags":[true,false]},
	// {"k":"b\"","v":-2.5,"tags":[false,false]}
	// ]
}
