package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// writeTableContainer writes a container as the reference creates tables:
// section 0 a BPXSD-typed filler, 1 the strings, 2 and 3 tables, xz and
// CRC32.
func writeTableContainer(t *testing.T) string {
	t.Helper()
	var names bpxstrings.Builder
	items, err := table.NewBuilder(&names, "items", []table.Column{
		{Name: "id", Type: table.Uint16, Len: 1},
		{Name: "name", Type: table.Varchar, Len: 12},
		{Name: "pos", Type: table.Float32, Len: 2},
		{Name: "ok", Type: table.Bool, Len: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][]any{
		{1, "sword", []float32{1.5, -2}, true},
		{2, "gone", []float32{0, 0}, false},
		{3, "tab\there", []float32{0.1, 3}, false},
	} {
		if _, err := items.Append(row...); err != nil {
			t.Fatal(err)
		}
	}
	items.SetFree(1, true)
	other, err := table.NewBuilder(&names, "other", []table.Column{{Name: "n", Type: table.Int64, Len: 1}})
	if err != nil {
		t.Fatal(err)
	}
	other.Append(-5)

	opts := bpx.SectionOptions{Compression: bpx.CompressXZ, Checksum: bpx.ChecksumCRC32}
	return writeSections(t, opts, map[uint8][]byte{
		bpx.SectionTypeStructuredData: {0},
		bpx.SectionTypeStrings:        names.Bytes(),
	}, items.Bytes(), other.Bytes())
}

// writeSections writes a container with one section for each entry of
// others, in type order, then one table section for each of tables, all
// with opts, and returns its path.
func writeSections(t *testing.T, opts bpx.SectionOptions, others map[uint8][]byte, tables ...[]byte) string {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	write := func(typ uint8, data []byte) {
		sw, err := w.CreateSection(typ, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(others)) {
		write(typ, others[typ])
	}
	for _, data := range tables {
		write(bpx.SectionTypeTable, data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tables.bpx")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTableText(t *testing.T) {
	path := writeTableContainer(t)
	r := runBPX(t, nil, "table", path)
	want := "id\tname\tpos\tok\n" +
		"1\tsword\t[1.5,-2]\ttrue\n" +
		"3\t\"tab\\there\"\t[0.1,3]\tfalse\n"
	if r.Code != exitOK || r.Stdout != want || r.Stderr != "" {
		t.Errorf("%+v\nwant stdout %q", r, want)
	}
	r = runBPX(t, nil, "table", "-s", "3", path)
	if r.Code != exitOK || r.Stdout != "n\n-5\n" {
		t.Errorf("-s 3: %+v", r)
	}
}

func TestTableJSON(t *testing.T) {
	path := writeTableContainer(t)
	r := runBPX(t, nil, "table", "--json", path)
	want := "[\n" +
		`{"id":1,"name":"sword","pos":[1.5,-2],"ok":true},` + "\n" +
		`{"id":3,"name":"tab\there","pos":[0.1,3],"ok":false}` + "\n]\n"
	if r.Code != exitOK || r.Stdout != want {
		t.Errorf("%+v\nwant stdout %q", r, want)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil || len(rows) != 2 || rows[1]["name"] != "tab\there" {
		t.Errorf("not the JSON array of rows: %v %v", rows, err)
	}
}

func TestTableErrors(t *testing.T) {
	path := writeTableContainer(t)
	plain, _ := writeContainer(t) // no table section
	// One uint8 column: stride 2; 3 bytes of rows is a partial row.
	partial := writeSections(t, bpx.SectionOptions{}, nil, []byte{0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 7, 0, 8})
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-s", "1", path}, exitFail, "section 1 has type 0xFF, not a table"},
		{[]string{"-s", "9", path}, exitFail, "no section 9"},
		{[]string{"-s", "x", path}, exitUsage, "-s wants a section index"},
		{[]string{plain}, exitFail, "no table section"},
		// Without a strings section, no name resolves.
		{[]string{partial}, exitFail, "section 0: strings: offset out of range at offset 0 (table name at table offset 0)"},
		{[]string{path, path}, exitUsage, "want one FILE"},
	} {
		r := runBPX(t, nil, append([]string{"table"}, tc.args...)...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.msg) {
			t.Errorf("%v: %+v, want exit %d and %q", tc.args, r, tc.code, tc.msg)
		}
	}
}
