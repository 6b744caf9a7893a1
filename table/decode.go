package table

import (
	"encoding/binary"
	"fmt"
	"iter"
	"sync"
	"unicode/utf8"

	bpxstrings "github.com/gobpx/bpx/strings"
)

const (
	headerSize = 8 // table header
	columnSize = 8 // one column entry
	freeFlag   = 1 // the flag byte of a free row
)

// Table is a decoded table section. It refers to the section's bytes,
// which must not change while the Table is in use. A Table is safe for
// concurrent use.
type Table struct {
	Name    string   // the table's name
	Columns []Column // the columns, in row order

	data    []byte         // the section
	start   int            // offset of the first row
	rowSize int            // bytes of values in a row
	stride  int            // bytes of a row in the section
	slots   int            // rows in the section, free ones included
	live    int            // rows not marked free
	offs    []int          // offset of each column in a row
	index   map[string]int // first column of each name

	keysOnce sync.Once
	keys     []string // JSON keys, made by jsonKeys
}

// Decode parses a table section (its uncompressed bytes) whose names are
// in strs. The Table refers to data without copying it. Errors for bad
// input are [*Error] values; see the package documentation for what is
// checked.
func Decode(data []byte, strs *bpxstrings.Table) (*Table, error) {
	if strs == nil {
		strs = &bpxstrings.Table{}
	}
	if len(data) < headerSize {
		return nil, &Error{Offset: int64(len(data)), What: "table header", Err: ErrTruncated}
	}
	name, err := strs.Get(binary.LittleEndian.Uint32(data))
	if err != nil {
		return nil, &Error{Offset: 0, What: "table name", Err: err}
	}
	n := int(binary.LittleEndian.Uint16(data[4:]))
	start := headerSize + n*columnSize
	if start > len(data) {
		i := (len(data) - headerSize) / columnSize
		return nil, &Error{Offset: int64(headerSize + i*columnSize),
			What: fmt.Sprintf("column %d of %d", i, n), Err: ErrTruncated}
	}
	t := &Table{
		Name:    name,
		Columns: make([]Column, n),
		data:    data,
		start:   start,
		offs:    make([]int, n),
		index:   make(map[string]int, n),
	}
	for i := range t.Columns {
		at := headerSize + i*columnSize
		e := data[at : at+columnSize]
		typ := Type(e[4])
		if typ > maxType {
			return nil, &Error{Offset: int64(at + 4), What: fmt.Sprintf("column %d type %d", i, typ), Err: ErrBadType}
		}
		name, err := strs.Get(binary.LittleEndian.Uint32(e))
		if err != nil {
			return nil, &Error{Offset: int64(at), What: fmt.Sprintf("column %d name", i), Err: err}
		}
		c := Column{Name: name, Type: typ, Len: binary.LittleEndian.Uint16(e[5:])}
		t.Columns[i] = c
		t.offs[i] = t.rowSize
		t.rowSize += c.Size()
		if t.rowSize > MaxRowSize {
			return nil, &Error{Offset: int64(at), What: fmt.Sprintf("column %d, %d bytes of row", i, t.rowSize), Err: ErrRowTooLarge}
		}
		if _, dup := t.index[name]; !dup {
			t.index[name] = i
		}
	}
	t.stride = Stride(t.rowSize)
	rows := len(data) - start
	t.slots = rows / t.stride
	if rows%t.stride != 0 {
		return nil, &Error{Offset: int64(start + t.slots*t.stride),
			What: fmt.Sprintf("partial row %d: %d of %d bytes", t.slots, rows%t.stride, t.stride), Err: ErrTruncated}
	}
	if err := t.scan(); err != nil {
		return nil, err
	}
	return t, nil
}

// scan counts the live rows and checks their Varchar cells.
func (t *Table) scan() error {
	var strCols []int
	for i, c := range t.Columns {
		if c.Type == Varchar && c.Len > 0 {
			strCols = append(strCols, i)
		}
	}
	for s := 0; s < t.slots; s++ {
		row := t.data[t.start+s*t.stride:][:t.stride]
		if row[t.rowSize] == freeFlag {
			continue
		}
		t.live++
		for _, i := range strCols {
			cell := row[t.offs[i]:][:t.Columns[i].Len]
			if !utf8.Valid(cell) {
				return &Error{Offset: int64(t.start + s*t.stride + t.offs[i]),
					What: fmt.Sprintf("row %d column %q", s, t.Columns[i].Name), Err: ErrInvalidUTF8}
			}
		}
	}
	return nil
}

// Column returns the index of the first column called name, or -1.
func (t *Table) Column(name string) int {
	if i, ok := t.index[name]; ok {
		return i
	}
	return -1
}

// RowSize returns the number of value bytes of a row: the offset of its
// free flag.
func (t *Table) RowSize() int { return t.rowSize }

// Stride returns the number of bytes a row takes in the section.
func (t *Table) Stride() int { return t.stride }

// Len returns the number of live rows, those not marked free.
func (t *Table) Len() int { return t.live }

// NumSlots returns the number of rows stored in the section, free ones
// included.
func (t *Table) NumSlots() int { return t.slots }

// Row returns the row stored in slot i, free or not. It panics if i is
// not in [0, NumSlots()). A free row's Varchar cells are not checked by
// Decode and may hold invalid UTF-8.
func (t *Table) Row(i int) Row {
	if i < 0 || i >= t.slots {
		panic(fmt.Sprintf("table: slot %d out of range [0, %d)", i, t.slots))
	}
	off := t.start + i*t.stride
	return Row{t: t, b: t.data[off : off+t.stride], slot: i}
}

// Rows returns an iterator over the live rows, in section order, with
// their slot numbers. Free rows are skipped.
func (t *Table) Rows() iter.Seq2[int, Row] {
	return func(yield func(int, Row) bool) {
		for i := 0; i < t.slots; i++ {
			r := t.Row(i)
			if r.Free() {
				continue
			}
			if !yield(i, r) {
				return
			}
		}
	}
}
