package table_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gobpx/bpx/bpxerr"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

var handColumns = []table.Column{
	{"id", table.Uint32, 1}, {"name", table.Varchar, 6}, {"scores", table.Int16, 3},
	{"alive", table.Bool, 1}, {"ratio", table.Float32, 1}, {"nothing", table.Null, 1},
}

// TestBuilderHandTable: the builder writes handTable byte for byte (but
// for the Bool byte 2, which it writes as 1), with the same strings.
func TestBuilderHandTable(t *testing.T) {
	var strs bpxstrings.Builder
	b, err := table.NewBuilder(&strs, "people", handColumns)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{uint32(1), "ann", []int16{10, -20, 30}, true, float32(0.5), nil},
		// Any Go integer that fits, a float64 for float32, an int slice.
		{2, "bob", []int{1, 2, 3}, false, 1.0, nil},
		{uint64(0xDEADBEEF), "zoë!", [3]int16{-32768, 32767, 0}, true, -1.25, nil},
	}
	for i, row := range rows {
		if slot, err := b.Append(row...); err != nil || slot != i {
			t.Fatalf("row %d: slot %d, %v", i, slot, err)
		}
	}
	if err := b.SetFree(1, true); err != nil {
		t.Fatal(err)
	}
	want := patch(handTable, 120+16, 1)
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("section\n got % x\nwant % x", b.Bytes(), want)
	}
	if string(strs.Bytes()) != handStrings {
		t.Errorf("strings %q", strs.Bytes())
	}
	if err := b.SetFree(3, true); !errors.Is(err, table.ErrRange) {
		t.Errorf("SetFree(3): %v", err)
	}
}

func TestBuilderRoundTrip(t *testing.T) {
	cols := []table.Column{
		{"b", table.Bool, 1}, {"u8", table.Uint8, 1}, {"u16", table.Uint16, 1}, {"u32", table.Uint32, 1},
		{"u64", table.Uint64, 1}, {"i8", table.Int8, 1}, {"i16", table.Int16, 1}, {"i32", table.Int32, 1},
		{"i64", table.Int64, 1}, {"f32", table.Float32, 1}, {"f64", table.Float64, 1}, {"s", table.Varchar, 16},
		{"n", table.Null, 4}, {"bytes", table.Uint8, 3}, {"empty", table.Float64, 0}, {"flags", table.Bool, 2},
		{"f32s", table.Float32, 2}, {"u64s", table.Uint64, 2}, {"i8s", table.Int8, 2},
		{"u32s", table.Uint32, 1}, {"i32s", table.Int32, 2}, {"f64s", table.Float64, 2},
	}
	row := []any{true, uint8(255), uint16(65535), uint32(math.MaxUint32), uint64(math.MaxUint64),
		int8(-128), int16(-32768), int32(math.MinInt32), int64(math.MinInt64),
		float32(math.Inf(-1)), math.NaN(), "tab\there \"q\"", nil, []byte{1, 2, 3}, []float64{},
		[]bool{true, false}, []float32{1e-45, 3.4028235e38}, []uint64{0, 1 << 63}, []int8{-1, 1},
		uint32(7), []int32{-1, 1}, []float64{0.1, -0}}
	var strs bpxstrings.Builder
	b, err := table.NewBuilder(&strs, "all", cols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(row...); err != nil {
		t.Fatal(err)
	}
	tb, err := table.Decode(b.Bytes(), bpxstrings.NewTable(strs.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tb.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	want := `[
{"b":true,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615,"i8":-128,"i16":-32768,` +
		`"i32":-2147483648,"i64":-9223372036854775808,"f32":"-Inf","f64":"NaN","s":"tab\there \"q\"","n":null,` +
		`"bytes":[1,2,3],"empty":[],"flags":[true,false],"f32s":[1e-45,3.4028235e+38],"u64s":[0,9223372036854775808],` +
		`"i8s":[-1,1],"u32s":7,"i32s":[-1,1],"f64s":[0.1,0]}
]
`
	if buf.String() != want {
		t.Errorf("JSON\n%s\nwant\n%s", buf.String(), want)
	}
	// The decoded values append back to the same bytes.
	b2, _ := table.NewBuilder(new(bpxstrings.Builder), "all", cols)
	r := tb.Row(0)
	var vals []any
	for i := range cols {
		vals = append(vals, r.ValueAt(i))
	}
	if _, err := b2.Append(vals...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Errorf("re-encoded\n% x\nwant\n% x", b2.Bytes(), b.Bytes())
	}
}

func TestBuilderErrors(t *testing.T) {
	newB := func() *table.Builder {
		b, err := table.NewBuilder(new(bpxstrings.Builder), "t", handColumns)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := []any{uint32(1), "ann", []int16{1, 2, 3}, true, float32(0.5), nil}
	with := func(i int, v any) []any {
		row := append([]any(nil), good...)
		row[i] = v
		return row
	}
	tests := []struct {
		name string
		row  []any
		want error
	}{
		{"too few values", good[:5], table.ErrType},
		{"string for uint32", with(0, "1"), table.ErrType},
		{"negative for uint32", with(0, -1), table.ErrRange},
		{"2^32 for uint32", with(0, uint64(1)<<32), table.ErrRange},
		{"float for uint32", with(0, 1.0), table.ErrType},
		{"7 bytes for varchar[6]", with(1, "abcdefg"), table.ErrRange},
		{"NUL at the end", with(1, "ab\x00"), table.ErrRange},
		{"NUL at the start", with(1, "\x00ab"), table.ErrRange},
		{"invalid UTF-8", with(1, "\xff"), table.ErrType},
		{"bytes for varchar", with(1, []byte("ab")), table.ErrType},
		{"2 elements for int16[3]", with(2, []int16{1, 2}), table.ErrType},
		{"scalar for int16[3]", with(2, int16(1)), table.ErrType},
		{"40000 in int16[3]", with(2, []int{1, 40000, 3}), table.ErrRange},
		{"int for bool", with(3, 1), table.ErrType},
		{"1e40 for float32", with(4, 1e40), table.ErrRange},
		{"int for float32", with(4, 1), table.ErrType},
		{"0 for null", with(5, 0), table.ErrType},
	}
	for _, tt := range tests {
		b := newB()
		before := len(b.Bytes())
		if _, err := b.Append(tt.row...); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if len(b.Bytes()) != before || b.NumSlots() != 0 {
			t.Errorf("%s: the failed row was kept", tt.name)
		}
	}
	// Ranges at the limits.
	b, _ := table.NewBuilder(new(bpxstrings.Builder), "t", []table.Column{{"i8", table.Int8, 1}, {"u64", table.Uint64, 1}})
	for _, row := range [][]any{{-128, uint64(math.MaxUint64)}, {127, 0}} {
		if _, err := b.Append(row...); err != nil {
			t.Errorf("%v: %v", row, err)
		}
	}
	for _, row := range [][]any{{-129, 0}, {128, 0}, {0, -1}} {
		if _, err := b.Append(row...); !errors.Is(err, table.ErrRange) {
			t.Errorf("%v: %v", row, err)
		}
	}
}

func TestNewBuilderErrors(t *testing.T) {
	big := []table.Column{{"a", table.Uint64, 65535}, {"b", table.Uint64, 65535}, {"c", table.Uint8, 17}}
	if _, err := table.NewBuilder(new(bpxstrings.Builder), "t", big[:2]); err != nil {
		t.Errorf("1048560-byte row: %v", err)
	}
	if _, err := table.NewBuilder(new(bpxstrings.Builder), "t", big); !errors.Is(err, table.ErrRowTooLarge) || !errors.Is(err, bpxerr.ErrTooLarge) {
		t.Errorf("1048577-byte row: %v", err)
	}
	many := make([]table.Column, table.MaxColumns+1)
	if _, err := table.NewBuilder(new(bpxstrings.Builder), "t", many); !errors.Is(err, bpxerr.ErrTooLarge) {
		t.Errorf("65536 columns: %v", err)
	}
	if _, err := table.NewBuilder(new(bpxstrings.Builder), "t", []table.Column{{"x", table.Varchar + 1, 1}}); !errors.Is(err, table.ErrType) {
		t.Errorf("type 13: %v", err)
	}
	if _, err := table.NewBuilder(new(bpxstrings.Builder), "t\x00", nil); !errors.Is(err, bpxstrings.ErrNUL) {
		t.Errorf("NUL in the name: %v", err)
	}
	// Most columns: 65535 Null columns of row size 0.
	var strs bpxstrings.Builder
	b, err := table.NewBuilder(&strs, "wide", make([]table.Column, table.MaxColumns))
	if err != nil {
		t.Fatal(err)
	}
	b.Append(make([]any, table.MaxColumns)...)
	tb, err := table.Decode(b.Bytes(), bpxstrings.NewTable(strs.Bytes()))
	if err != nil || len(tb.Columns) != table.MaxColumns || tb.Len() != 1 || tb.Stride() != 1 {
		t.Errorf("65535 columns: %v", err)
	}
	if !strings.HasPrefix(string(strs.Bytes()), "wide\x00\x00") {
		t.Errorf("strings %q", strs.Bytes()[:8])
	}
}

// TestBuilderSectionSizeLimit: a row that would take the section past the
// u32 size limit (lowered here to 3 rows) is refused with
// bpx.ErrTooLarge and leaves the section as it was.
func TestBuilderSectionSizeLimit(t *testing.T) {
	cols := []table.Column{{"a", table.Uint32, 1}}
	var strs bpxstrings.Builder
	b, err := table.NewBuilder(&strs, "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	stride := table.Stride(4)
	defer table.SetMaxSectionSize(int64(len(b.Bytes()) + 3*stride))()
	for i := range 3 {
		if _, err := b.Append(i); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	before := bytes.Clone(b.Bytes())
	if slot, err := b.Append(3); !errors.Is(err, bpxerr.ErrTooLarge) || slot != -1 {
		t.Fatalf("row past the limit: slot %d, %v", slot, err)
	}
	if !bytes.Equal(b.Bytes(), before) || b.NumSlots() != 3 {
		t.Errorf("the refused row changed the section (%d slots)", b.NumSlots())
	}
}
