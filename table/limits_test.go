package table_test

import (
	"runtime"
	"strconv"
	"testing"

	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// TestDecodeMemory checks the documented bound: at most about 13 bytes
// allocated per byte of the column table (the most columns, each with its
// own name), and nothing per row.
func TestDecodeMemory(t *testing.T) {
	cols := make([]table.Column, table.MaxColumns)
	for i := range cols {
		cols[i] = table.Column{Name: "c" + strconv.Itoa(i), Type: table.Null, Len: 1}
	}
	var strs bpxstrings.Builder
	b, err := table.NewBuilder(&strs, "wide", cols)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		b.Append(make([]any, len(cols))...)
	}
	names := bpxstrings.NewTable(strs.Bytes())
	section := b.Bytes()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tb, err := table.Decode(section, names)
	runtime.ReadMemStats(&after)
	if err != nil || tb.Len() != 10 {
		t.Fatal(err)
	}
	colTable := 8 * len(cols)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(13*colTable) {
		t.Errorf("Decode allocated %d bytes for a %d-byte column table (%.1f per byte)", got, colTable, float64(got)/float64(colTable))
	} else {
		t.Logf("%.1f bytes per byte of the column table", float64(got)/float64(colTable))
	}
}
