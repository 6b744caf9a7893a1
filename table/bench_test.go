package table_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// benchRow is one row of the benchmark table, for the encoding/json
// baseline.
type benchRow struct {
	ID    uint32     `json:"id" table:"id"`
	Name  string     `json:"name" table:"name"`
	Pos   [3]float32 `json:"pos" table:"pos"`
	HP    int16      `json:"hp" table:"hp"`
	Alive bool       `json:"alive" table:"alive"`
}

const benchRows = 100_000

// benchTable returns a 100k-row section (35 value bytes, stride 64), its
// strings, and the same rows as Go values.
func benchTable(b *testing.B) (section, names []byte, rows []benchRow) {
	b.Helper()
	var strs bpxstrings.Builder
	bld, err := table.NewBuilder(&strs, "units", []table.Column{
		{Name: "id", Type: table.Uint32, Len: 1}, {Name: "name", Type: table.Varchar, Len: 16},
		{Name: "pos", Type: table.Float32, Len: 3}, {Name: "hp", Type: table.Int16, Len: 1},
		{Name: "alive", Type: table.Bool, Len: 1},
	})
	if err != nil {
		b.Fatal(err)
	}
	rows = make([]benchRow, benchRows)
	for i := range rows {
		r := benchRow{uint32(i), fmt.Sprintf("unit-%d", i), [3]float32{float32(i) * 0.25, -1.5, float32(i % 7)}, int16(i % 1000), i%3 != 0}
		rows[i] = r
		if _, err := bld.Append(r.ID, r.Name, r.Pos, r.HP, r.Alive); err != nil {
			b.Fatal(err)
		}
	}
	return bld.Bytes(), strs.Bytes(), rows
}

// BenchmarkTable measures decoding and JSON against baselines on the same
// data in the same run: a copy of the section (memory speed) and
// encoding/json of the equivalent Go values. All report the section's
// bytes per operation.
func BenchmarkTable(b *testing.B) {
	section, names, rows := benchTable(b)
	strs := bpxstrings.NewTable(names)
	b.Run("baseline-copy", func(b *testing.B) {
		b.SetBytes(int64(len(section)))
		for b.Loop() {
			_ = bytes.Clone(section)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(section)))
		for b.Loop() {
			if _, err := table.Decode(section, strs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(section)))
		for b.Loop() {
			if err := json.NewEncoder(io.Discard).Encode(rows); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+json", func(b *testing.B) {
		b.SetBytes(int64(len(section)))
		for b.Loop() {
			tb, err := table.Decode(section, strs)
			if err != nil {
				b.Fatal(err)
			}
			if err := tb.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(section)))
		var r benchRow
		for b.Loop() {
			tb, err := table.Decode(section, strs)
			if err != nil {
				b.Fatal(err)
			}
			for _, row := range tb.Rows() {
				if err := row.Unmarshal(&r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
