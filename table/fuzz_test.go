package table_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gobpx/bpx/bpxerr"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// reencode writes t again with a Builder: its live rows with their values,
// its free rows with their values when they can be written, else zeroed.
func reencode(t *testing.T, tb *table.Table) (section, strs []byte) {
	t.Helper()
	var sb bpxstrings.Builder
	b, err := table.NewBuilder(&sb, tb.Name, tb.Columns)
	if err != nil {
		t.Fatalf("NewBuilder of decoded columns: %v", err)
	}
	// The values of a zeroed row, for free rows that do not append.
	zero := make([]any, len(tb.Columns))
	var zsb bpxstrings.Builder
	zb, err := table.NewBuilder(&zsb, tb.Name, tb.Columns)
	if err != nil {
		t.Fatal(err)
	}
	zeroSection := append(bytes.Clone(zb.Bytes()), make([]byte, tb.Stride())...)
	zt, err := table.Decode(zeroSection, bpxstrings.NewTable(zsb.Bytes()))
	if err != nil {
		t.Fatalf("zeroed row: %v", err)
	}
	for i := range tb.Columns {
		zero[i] = zt.Row(0).ValueAt(i)
	}
	for slot := 0; slot < tb.NumSlots(); slot++ {
		r := tb.Row(slot)
		vals := make([]any, len(tb.Columns))
		for i := range vals {
			vals[i] = r.ValueAt(i)
		}
		if _, err := b.Append(vals...); err != nil {
			if !r.Free() {
				t.Fatalf("slot %d: a live row does not append: %v", slot, err)
			}
			if _, err := b.Append(zero...); err != nil {
				t.Fatalf("slot %d: zero row: %v", slot, err)
			}
		}
		if r.Free() {
			if err := b.SetFree(slot, true); err != nil {
				t.Fatalf("slot %d: SetFree: %v", slot, err)
			}
		}
	}
	return b.Bytes(), sb.Bytes()
}

// checkDecode is the property FuzzDecode checks.
func checkDecode(t *testing.T, data, strs []byte) {
	tb, err := table.Decode(data, bpxstrings.NewTable(strs))
	if err != nil {
		var e *table.Error
		if !errors.As(err, &e) || !errors.Is(err, bpxerr.ErrFormat) && !errors.Is(err, bpxerr.ErrTooLarge) {
			t.Fatalf("error %v (%T) is not a *table.Error matching a bpx sentinel", err, err)
		}
		if e.Offset < 0 || e.Offset > int64(len(data)) {
			t.Fatalf("offset %d outside the %d-byte section", e.Offset, len(data))
		}
		return
	}
	var js bytes.Buffer
	if err := tb.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for slot := 0; slot < tb.NumSlots(); slot++ { // free rows too: no panic
		tb.Row(slot).AppendJSON(nil)
	}
	sec, names := reencode(t, tb)
	tb2, err := table.Decode(sec, bpxstrings.NewTable(names))
	if err != nil {
		t.Fatalf("re-encoded table does not decode: %v", err)
	}
	var js2 bytes.Buffer
	tb2.WriteJSON(&js2)
	if tb2.Name != tb.Name || tb2.NumSlots() != tb.NumSlots() || tb2.Len() != tb.Len() || js.String() != js2.String() {
		t.Fatalf("re-encoded table differs:\n%s\n%s", js.String(), js2.String())
	}
	for slot := 0; slot < tb.NumSlots(); slot++ {
		if tb.Row(slot).Free() != tb2.Row(slot).Free() {
			t.Fatalf("slot %d: free flag changed", slot)
		}
	}
	sec2, names2 := reencode(t, tb2)
	if !bytes.Equal(sec, sec2) || !bytes.Equal(names, names2) {
		t.Fatalf("encode(decode(encode(decode(x)))) differs from encode(decode(x))")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(handTable, []byte(handStrings))
	f.Add(handTable[:56], []byte(handStrings))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []byte("\x00"))
	var strs bpxstrings.Builder
	b, _ := table.NewBuilder(&strs, "t", []table.Column{
		{"s", table.Varchar, 3}, {"a", table.Uint64, 2}, {"f", table.Float64, 1}, {"n", table.Null, 0}, {"e", table.Int8, 0}})
	b.Append("x", []uint64{1, 2}, 0.5, nil, []int8{})
	b.Append("", []uint64{0, 0}, -0.0, nil, []int8{})
	if err := b.SetFree(1, true); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(b.Bytes()), bytes.Clone(strs.Bytes()))
	f.Fuzz(checkDecode)
}
