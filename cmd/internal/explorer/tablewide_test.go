package explorer

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// TestTableWideRowBounded: a row's JSON can be six times its bytes (a
// bool, one byte, is "false,"), so a few rows of 1 MiB (MaxRowSize) make
// pages of many MiB: a table preview of such rows stays within its share
// of the budget (it took 105 MB against a share of 25 MB: the page ended
// only after the row that passed maxTablePage, cells grew from nothing,
// and the JSON encoder's buffer was not counted).
func TestTableWideRowBounded(t *testing.T) {
	const cols, n = 16, 65535
	var columns []table.Column
	for i := range cols {
		columns = append(columns, table.Column{Name: fmt.Sprint("c", i), Type: table.Bool, Len: n})
	}
	strs := &bpxstrings.Builder{}
	tb, err := table.NewBuilder(strs, "wide", columns)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, cols)
	for i := range row {
		row[i] = make([]bool, n)
	}
	for range 4 {
		if _, err := tb.Append(row...); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	w.SetType('X')
	w.WriteSection(bpx.SectionTypeTable, bpx.SectionOptions{}, tb.Bytes())
	w.WriteSection(bpx.SectionTypeStrings, bpx.SectionOptions{}, strs.Bytes())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, []File{file("wide.bpx", buf.Bytes())})
	sec, ss, err := tableSections(inputSubject(s.files[0], "file=0"), -1)
	if err != nil {
		t.Fatal(err)
	}
	cost := tableCost(sec, ss)
	var dw *discardWriter
	a := allocated(func() {
		dw = &discardWriter{h: http.Header{}}
		req := httptest.NewRequest("GET", "/api/table?file=0", nil)
		req.Host = "localhost"
		s.ServeHTTP(dw, req)
	})
	t.Logf("file %d bytes, row %d bytes: status %d, allocated %d bytes, share %d", buf.Len(), cols*n, dw.code, a, cost)
	if int64(a) > cost {
		t.Errorf("allocated %d bytes, above its share of the budget (%d)", a, cost)
	}
}
