package table_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpx/bpx/bpxerr"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// handStrings is the string section of handTable, offsets in comments.
const handStrings = "people\x00" + // 0
	"id\x00" + // 7
	"name\x00" + // 10
	"scores\x00" + // 15
	"alive\x00" + // 22
	"ratio\x00" + // 28
	"nothing\x00" // 34

// handTable is a table section laid out by hand from the layout in the
// implementers' notes (§12): 6 columns of 21 value bytes, so a stride of
// 32 with the free flag at byte 21, and three rows, the middle one free.
var handTable = []byte{
	// header: name "people", 6 columns, 2 bytes of padding
	0, 0, 0, 0, 6, 0, 0, 0,
	// columns: name pointer, type code, length (u16 at bytes 5-6), padding
	7, 0, 0, 0, 4, 1, 0, 0, // id      uint32        row bytes 0-3
	10, 0, 0, 0, 12, 6, 0, 0, // name    varchar[6]    row bytes 4-9
	15, 0, 0, 0, 7, 3, 0, 0, // scores  int16[3]      row bytes 10-15
	22, 0, 0, 0, 1, 1, 0, 0, // alive   bool          row byte 16
	28, 0, 0, 0, 10, 1, 0, 0, // ratio   float32       row bytes 17-20
	34, 0, 0, 0, 0, 1, 0, 0, // nothing null          no bytes
	// row 0 (offset 56), live
	1, 0, 0, 0, // id 1
	'a', 'n', 'n', 0, 0, 0, // name "ann", NUL-padded
	10, 0, 0xEC, 0xFF, 30, 0, // scores 10, -20, 30
	1,             // alive true
	0, 0, 0, 0x3F, // ratio 0.5
	0,                            // free flag: live
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // padding to 32
	// row 1 (offset 88), free
	2, 0, 0, 0,
	'b', 'o', 'b', 0, 0, 0,
	1, 0, 2, 0, 3, 0,
	0,
	0, 0, 0x80, 0x3F, // 1.0
	1, // free flag: free
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	// row 2 (offset 120), live
	0xEF, 0xBE, 0xAD, 0xDE, // id 0xDEADBEEF
	'z', 'o', 0xC3, 0xAB, '!', 0, // name "zoë!"
	0x00, 0x80, 0xFF, 0x7F, 0, 0, // scores -32768, 32767, 0
	2,                // alive: any byte but 0 is true
	0, 0, 0xA0, 0xBF, // ratio -1.25
	0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
}

var handJSON = `[
{"id":1,"name":"ann","scores":[10,-20,30],"alive":true,"ratio":0.5,"nothing":null},
{"id":3735928559,"name":"zoë!","scores":[-32768,32767,0],"alive":true,"ratio":-1.25,"nothing":null}
]
`

func decodeHand(t *testing.T, data []byte) (*table.Table, error) {
	t.Helper()
	return table.Decode(data, bpxstrings.NewTableString(handStrings))
}

func TestDecodeHandTable(t *testing.T) {
	tb, err := decodeHand(t, handTable)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []table.Column{
		{"id", table.Uint32, 1}, {"name", table.Varchar, 6}, {"scores", table.Int16, 3},
		{"alive", table.Bool, 1}, {"ratio", table.Float32, 1}, {"nothing", table.Null, 1},
	}
	if tb.Name != "people" || !reflect.DeepEqual(tb.Columns, wantCols) {
		t.Fatalf("name %q columns %+v", tb.Name, tb.Columns)
	}
	if tb.RowSize() != 21 || tb.Stride() != 32 || tb.NumSlots() != 3 || tb.Len() != 2 {
		t.Fatalf("row size %d stride %d slots %d live %d", tb.RowSize(), tb.Stride(), tb.NumSlots(), tb.Len())
	}
	if tb.Column("scores") != 2 || tb.Column("missing") != -1 {
		t.Errorf("Column lookup: %d %d", tb.Column("scores"), tb.Column("missing"))
	}
	var slots []int
	var got [][]any
	for slot, r := range tb.Rows() {
		slots = append(slots, slot)
		var vals []any
		for i := range tb.Columns {
			vals = append(vals, r.ValueAt(i))
		}
		got = append(got, vals)
	}
	want := [][]any{
		{uint32(1), "ann", []int16{10, -20, 30}, true, float32(0.5), nil},
		{uint32(0xDEADBEEF), "zoë!", []int16{-32768, 32767, 0}, true, float32(-1.25), nil},
	}
	if !reflect.DeepEqual(slots, []int{0, 2}) || !reflect.DeepEqual(got, want) {
		t.Errorf("slots %v rows %v", slots, got)
	}
	if free := tb.Row(1); !free.Free() || free.ValueAt(1) != "bob" {
		t.Errorf("slot 1: free %v name %v", free.Free(), free.ValueAt(1))
	}
	var buf bytes.Buffer
	if err := tb.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != handJSON {
		t.Errorf("JSON:\n%s\nwant\n%s", buf.String(), handJSON)
	}
}

func TestTypedAccess(t *testing.T) {
	tb, err := decodeHand(t, handTable)
	if err != nil {
		t.Fatal(err)
	}
	r := tb.Row(2)
	id, err1 := r.Int("id")
	uid, err2 := r.Uint("id")
	name, err3 := r.String("name")
	alive, err4 := r.Bool("alive")
	ratio, err5 := r.Float("ratio")
	scores, err6 := r.Value("scores")
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		t.Fatal(err)
	}
	if id != 0xDEADBEEF || uid != 0xDEADBEEF || name != "zoë!" || !alive || ratio != -1.25 ||
		!reflect.DeepEqual(scores, []int16{-32768, 32767, 0}) {
		t.Errorf("%v %v %q %v %v %v", id, uid, name, alive, ratio, scores)
	}
	for _, tc := range []struct {
		call func() error
		want error
	}{
		{func() error { _, err := r.Int("missing"); return err }, table.ErrNoColumn},
		{func() error { _, err := r.Value("missing"); return err }, table.ErrNoColumn},
		{func() error { _, err := r.Int("name"); return err }, table.ErrType},
		{func() error { _, err := r.Int("scores"); return err }, table.ErrType}, // an array
		{func() error { _, err := r.String("id"); return err }, table.ErrType},
		{func() error { _, err := r.Bool("ratio"); return err }, table.ErrType},
		{func() error { _, err := r.Float("alive"); return err }, table.ErrType},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("got %v, want %v", err, tc.want)
		}
	}
}

func TestUnmarshal(t *testing.T) {
	tb, err := decodeHand(t, handTable)
	if err != nil {
		t.Fatal(err)
	}
	type person struct {
		ID     int64    `table:"id"`
		Name   string   `table:"name"`
		Scores [3]int32 `table:"scores"`
		Alive  bool     `table:"alive"`
		Ratio  float64  `table:"ratio"`
		Skip   string   `table:"-"`
		Extra  int
	}
	var got []person
	for _, r := range tb.Rows() {
		p := person{Skip: "kept", Extra: 7}
		if err := r.Unmarshal(&p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	want := []person{
		{1, "ann", [3]int32{10, -20, 30}, true, 0.5, "kept", 7},
		{0xDEADBEEF, "zoë!", [3]int32{-32768, 32767, 0}, true, -1.25, "kept", 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	r := tb.Row(2)
	var small struct {
		ID int16 `table:"id"`
	}
	if err := r.Unmarshal(&small); !errors.Is(err, table.ErrRange) {
		t.Errorf("0xDEADBEEF into int16: %v", err)
	}
	var wrong struct {
		Name int `table:"name"`
	}
	if err := r.Unmarshal(&wrong); !errors.Is(err, table.ErrType) {
		t.Errorf("string into int: %v", err)
	}
	var short struct {
		Scores [2]int16 `table:"scores"`
	}
	if err := r.Unmarshal(&short); !errors.Is(err, table.ErrType) {
		t.Errorf("3 elements into [2]int16: %v", err)
	}
	var anyv struct {
		Scores any `table:"scores"`
	}
	if err := r.Unmarshal(&anyv); err != nil || !reflect.DeepEqual(anyv.Scores, []int16{-32768, 32767, 0}) {
		t.Errorf("into any: %v %v", anyv.Scores, err)
	}
	if err := r.Unmarshal(person{}); !errors.Is(err, table.ErrType) {
		t.Errorf("non-pointer: %v", err)
	}
}

// patch returns a copy of data with the bytes at off replaced.
func patch(data []byte, off int, b ...byte) []byte {
	c := bytes.Clone(data)
	copy(c[off:], b)
	return c
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		want   error // package sentinel
		class  error // bpx sentinel
		offset int64
	}{
		{"empty", nil, table.ErrTruncated, bpxerr.ErrFormat, 0},
		{"header cut", handTable[:7], table.ErrTruncated, bpxerr.ErrFormat, 7},
		{"first column cut", handTable[:15], table.ErrTruncated, bpxerr.ErrFormat, 8},
		{"last column cut", handTable[:55], table.ErrTruncated, bpxerr.ErrFormat, 48},
		{"partial row", handTable[:56+31], table.ErrTruncated, bpxerr.ErrFormat, 56},
		{"partial last row", handTable[:len(handTable)-1], table.ErrTruncated, bpxerr.ErrFormat, 120},
		{"extra byte", append(bytes.Clone(handTable), 0), table.ErrTruncated, bpxerr.ErrFormat, 152},
		{"65535 columns", patch(handTable, 4, 0xFF, 0xFF), table.ErrTruncated, bpxerr.ErrFormat, 152},
		{"type 13", patch(handTable, 8+2*8+4, 13), table.ErrBadType, bpxerr.ErrFormat, 28},
		{"type 255", patch(handTable, 8+4, 255), table.ErrBadType, bpxerr.ErrFormat, 12},
		{"table name out of range", patch(handTable, 0, 42), bpxstrings.ErrOutOfRange, bpxerr.ErrFormat, 0},
		{"column name out of range", patch(handTable, 8+3*8, 0xFF, 0xFF, 0xFF, 0xFF), bpxstrings.ErrOutOfRange, bpxerr.ErrFormat, 32},
		{"invalid UTF-8 in a live row", patch(handTable, 120+4, 0xFF), table.ErrInvalidUTF8, bpxerr.ErrFormat, 124},
		// Three uint64[65535] columns: 1572840 bytes per row.
		{"row too large", []byte{0, 0, 0, 0, 3, 0, 0, 0,
			7, 0, 0, 0, 5, 0xFF, 0xFF, 0,
			7, 0, 0, 0, 5, 0xFF, 0xFF, 0,
			7, 0, 0, 0, 5, 0xFF, 0xFF, 0}, table.ErrRowTooLarge, bpxerr.ErrTooLarge, 24},
	}
	for _, tt := range tests {
		_, err := decodeHand(t, tt.data)
		var e *table.Error
		if !errors.Is(err, tt.want) || !errors.Is(err, tt.class) || !errors.As(err, &e) || e.Offset != tt.offset {
			t.Errorf("%s: %v (offset %v), want %v, %v at %d", tt.name, err, e, tt.want, tt.class, tt.offset)
		}
	}
}

// TestDecodeEveryPrefix: a prefix of the section is either a table of the
// rows it holds whole or an error matching ErrTruncated, never a panic.
func TestDecodeEveryPrefix(t *testing.T) {
	for n := 0; n <= len(handTable); n++ {
		tb, err := decodeHand(t, handTable[:n])
		switch {
		case n >= 56 && (n-56)%32 == 0:
			if err != nil || tb.NumSlots() != (n-56)/32 {
				t.Errorf("%d bytes: %v", n, err)
			}
		case !errors.Is(err, table.ErrTruncated) || !errors.Is(err, bpxerr.ErrFormat):
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}

func TestDecodeLenient(t *testing.T) {
	// What the reference ignores: padding bytes, a free flag other than 1
	// (live), invalid UTF-8 in a free row.
	data := patch(handTable, 6, 0xAA, 0xBB)
	data = patch(data, 8+7, 0xCC)
	data = patch(data, 56+21, 7)
	data = patch(data, 56+30, 0xDD)
	data = patch(data, 88+4, 0xFF)
	tb, err := decodeHand(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 2 || tb.Row(0).Free() || !tb.Row(1).Free() {
		t.Errorf("live %d", tb.Len())
	}
	// Varchar: NULs at both ends are trimmed, inner ones kept.
	data = patch(handTable, 56+4, 0, 'a', 0, 'b', 0, 0)
	tb, err = decodeHand(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := tb.Row(0).String("name"); s != "a\x00b" {
		t.Errorf("name %q", s)
	}
}

func TestZeroRowSize(t *testing.T) {
	// No columns: the stride is 1, the flag byte alone.
	data := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}
	tb, err := decodeHand(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Stride() != 1 || tb.NumSlots() != 3 || tb.Len() != 2 {
		t.Errorf("stride %d slots %d live %d", tb.Stride(), tb.NumSlots(), tb.Len())
	}
	var buf bytes.Buffer
	tb.WriteJSON(&buf)
	if buf.String() != "[\n{},\n{}\n]\n" {
		t.Errorf("JSON %q", buf.String())
	}
}

func TestStride(t *testing.T) {
	for rowSize, want := range map[int]int{0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 7: 8, 8: 16, 21: 32, 32: 64, 33: 64} {
		if got := table.Stride(rowSize); got != want {
			t.Errorf("Stride(%d) = %d, want %d", rowSize, got, want)
		}
	}
}

func TestTypeString(t *testing.T) {
	var names []string
	for ty := table.Null; ty <= table.Varchar+1; ty++ {
		names = append(names, fmt.Sprintf("%v:%d", ty, ty.Size()))
	}
	want := "null:0 bool:1 uint8:1 uint16:2 uint32:4 uint64:8 int8:1 int16:2 int32:4 int64:8 float32:4 float64:8 varchar:1 Type(13):0"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}
