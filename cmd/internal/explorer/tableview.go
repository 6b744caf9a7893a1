package explorer

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// maxTablePage bounds the JSON of the rows of one /api/table page: a page
// stops early, with fewer rows than its limit, before the row that would
// pass it (a row of MaxRowSize bytes makes at most 6.5 MiB of JSON).
const maxTablePage = 8 << 20

// What a table preview takes at most: tableFactor per byte of its table
// and strings sections, and tablePageFactor times maxTablePage for its
// page: its cells, the JSON encoder's growing buffer and the answer
// (TestPreviewCostFactors and TestTableWideRowBounded measure them).
const (
	tableFactor     = 2
	tablePageFactor = 4
)

// tableColumn is a column in /api/table.
type tableColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Len  int    `json:"len"`
}

// tablePage is the answer of /api/table.
type tablePage struct {
	Name    string              `json:"name"`
	Columns []tableColumn       `json:"columns"`
	Total   int                 `json:"total"`
	Offset  int                 `json:"offset"`
	Rows    [][]json.RawMessage `json:"rows"`
}

// handleTable answers /api/table: the columns of a table section and one
// page of its live rows, each cell as "bpx table --json" writes it.
func (s *Server) handleTable(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	section, err := queryInt(q.Get("section"), -1, "section")
	offset, err2 := queryInt(q.Get("offset"), 0, "offset")
	limit, err3 := queryInt(q.Get("limit"), DefaultListLimit, "limit")
	for _, e := range []error{err, err2, err3} {
		if e != nil {
			fail(w, e)
			return
		}
	}
	if limit > MaxListLimit {
		fail(w, badRequestf("limit %d above %d", limit, MaxListLimit))
		return
	}
	sub, err := s.subject(r)
	if err != nil {
		fail(w, err)
		return
	}
	defer sub.Close()
	if sub.rd == nil {
		fail(w, fmt.Errorf("%s: %w", sub.name, sub.rdErr))
		return
	}
	sec, ss, err := tableSections(sub, section)
	if err != nil {
		fail(w, err)
		return
	}
	g, err := s.acquire(r, sub.name, tableCost(sec, ss))
	if err != nil {
		failRequest(w, r, err)
		return
	}
	tb, err := readTable(sub, sec, ss)
	if err != nil {
		g.release()
		fail(w, err)
		return
	}
	page := tablePage{Name: tb.Name, Columns: make([]tableColumn, len(tb.Columns)), Total: tb.Len(), Offset: offset, Rows: [][]json.RawMessage{}}
	for i, c := range tb.Columns {
		page.Columns[i] = tableColumn{c.Name, c.Type.String(), int(c.Len)}
	}
	rowCap := 0 // the cells' buffers of a row, and their commas
	for _, c := range tb.Columns {
		rowCap += cellJSONCap(c) + 1
	}
	n, size := 0, 0
	for _, row := range tb.Rows() {
		if n++; n <= offset {
			continue
		}
		if len(page.Rows) == limit {
			break
		}
		// A row's JSON is up to 6 times its bytes (a bool is "false,"),
		// each cell made in one buffer of that size: the page ends before
		// the row whose buffers would pass maxTablePage, and holds one row
		// at least.
		if len(page.Rows) > 0 && size+rowCap > maxTablePage {
			break
		}
		cells := make([]json.RawMessage, len(tb.Columns))
		for i, c := range tb.Columns {
			cells[i] = row.AppendCellJSON(make([]byte, 0, cellJSONCap(c)), i)
		}
		size += rowCap
		page.Rows = append(page.Rows, cells)
	}
	sendJSON(w, r, g, page)
}

// tableCost is what the preview of table section sec with strings
// section ss (or nil) takes at most.
func tableCost(sec, ss *bpx.Section) int64 {
	n := int64(sec.USize)
	if ss != nil {
		n += int64(ss.USize)
	}
	return tableFactor*n + tablePageFactor*maxTablePage
}

// cellJSONCap bounds the JSON of a cell of column c: 6 bytes per byte of
// the cell at most (a bool is "false,", an escaped varchar byte
// "\u00XX", a float32 "-3.4028235e+38," of 4 bytes), and brackets or
// "null".
func cellJSONCap(c table.Column) int { return 6*c.Size() + 8 }

// queryInt parses a non-negative query parameter, def when it is empty.
func queryInt(v string, def int, name string) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequestf("%s wants a number from 0, got %q", name, v)
	}
	return n, nil
}

// tableSections returns table section i of sub (its first table section
// when i < 0) and the container's first strings section, nil if none.
func tableSections(sub *subject, i int) (sec, ss *bpx.Section, err error) {
	switch {
	case i >= len(sub.rd.Sections):
		return nil, nil, notFoundf("%s: no section %d (the file has %d)", sub.name, i, len(sub.rd.Sections))
	case i >= 0:
		sec = sub.rd.Sections[i]
	default:
		if sec = sub.rd.FindSection(bpx.SectionTypeTable); sec == nil {
			return nil, nil, notFoundf("%s: no table section (type 0xFD)", sub.name)
		}
	}
	if sec.Type != bpx.SectionTypeTable {
		return nil, nil, badRequestf("%s: section %d has type 0x%02X, not a table (0xFD)", sub.name, sec.Index, sec.Type)
	}
	ss = sub.rd.FindSection(bpx.SectionTypeStrings)
	name := fmt.Sprintf("%s: section %d", sub.name, sec.Index)
	if ss != nil {
		name = fmt.Sprintf("%s: sections %d and %d", sub.name, sec.Index, ss.Index)
	}
	// Both sections are decoded: one preview's share is for both.
	if err := checkPreviewSize(name, tableCost(sec, ss)); err != nil {
		return nil, nil, err
	}
	return sec, ss, nil
}

// readTable decodes table section sec of sub, its names from the strings
// section ss (if not nil).
func readTable(sub *subject, sec, ss *bpx.Section) (*table.Table, error) {
	strs := &bpxstrings.Table{}
	if ss != nil {
		data, err := sectionData(sub.name, ss)
		if err != nil {
			return nil, err
		}
		strs = bpxstrings.NewTable(data)
	}
	data, err := sectionData(sub.name, sec)
	if err != nil {
		return nil, err
	}
	tb, err := table.Decode(data, strs)
	if err != nil {
		return nil, fmt.Errorf("%s: section %d: %w", sub.name, sec.Index, err)
	}
	return tb, nil
}
