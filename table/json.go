package table

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"strconv"

	"github.com/gobpx/bpx/internal/jsonstr"
)

// AppendJSON appends the row to dst as one JSON object keyed by column
// name, in column order: Null is null, integers and booleans are JSON
// numbers and booleans, floats the shortest decimal that reads back to the
// same bits (NaN and infinities, which JSON lacks, the strings "NaN",
// "+Inf" and "-Inf"), Varchar a JSON string and arrays JSON arrays. Two
// columns of the same name give the key twice.
func (r Row) AppendJSON(dst []byte) []byte {
	keys := r.t.jsonKeys()
	dst = append(dst, '{')
	for i := range r.t.Columns {
		dst = append(dst, keys[i]...)
		dst = r.AppendCellJSON(dst, i)
	}
	return append(dst, '}')
}

// jsonKeys returns, for each column, its name as a JSON key followed by a
// colon, preceded by a comma but for the first.
func (t *Table) jsonKeys() []string {
	t.keysOnce.Do(func() {
		t.keys = make([]string, len(t.Columns))
		var b []byte
		for i, c := range t.Columns {
			b = b[:0]
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, c.Name, jsonstr.Go)
			t.keys[i] = string(append(b, ':'))
		}
	})
	return t.keys
}

// AppendCellJSON appends the value of column i to dst as JSON, as
// [Row.AppendJSON] writes it. It panics if i is out of range.
func (r Row) AppendCellJSON(dst []byte, i int) []byte {
	c := r.t.Columns[i]
	b := r.cell(i)
	switch {
	case c.Type == Null:
		return append(dst, "null"...)
	case c.Type == Varchar:
		return jsonstr.Append(dst, varchar(b), jsonstr.Go)
	case c.Len == 1:
		return appendScalarJSON(dst, c.Type, b)
	}
	dst = append(dst, '[')
	size := c.Type.Size()
	for j := 0; j < int(c.Len); j++ {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = appendScalarJSON(dst, c.Type, b[j*size:])
	}
	return append(dst, ']')
}

// appendScalarJSON appends the element of type t at the start of b.
func appendScalarJSON(dst []byte, t Type, b []byte) []byte {
	le := binary.LittleEndian
	switch t {
	case Bool:
		return strconv.AppendBool(dst, b[0] != 0)
	case Uint8:
		return strconv.AppendUint(dst, uint64(b[0]), 10)
	case Uint16:
		return strconv.AppendUint(dst, uint64(le.Uint16(b)), 10)
	case Uint32:
		return strconv.AppendUint(dst, uint64(le.Uint32(b)), 10)
	case Uint64:
		return strconv.AppendUint(dst, le.Uint64(b), 10)
	case Int8:
		return strconv.AppendInt(dst, int64(int8(b[0])), 10)
	case Int16:
		return strconv.AppendInt(dst, int64(int16(le.Uint16(b))), 10)
	case Int32:
		return strconv.AppendInt(dst, int64(int32(le.Uint32(b))), 10)
	case Int64:
		return strconv.AppendInt(dst, int64(le.Uint64(b)), 10)
	case Float32:
		return appendFloat(dst, float64(math.Float32frombits(le.Uint32(b))), 32)
	}
	return appendFloat(dst, math.Float64frombits(le.Uint64(b)), 64)
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Inf"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// WriteJSON writes the live rows to w as a JSON array of objects, one
// object ([Row.AppendJSON]) per line:
//
//	[
//	{"id":1,"name":"a"},
//	{"id":2,"name":"b"}
//	]
//
// An empty table is "[]". The output ends with a newline. It streams: the
// memory used does not grow with the number of rows.
func (t *Table) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	line := []byte("[")
	n := 0
	for _, r := range t.Rows() {
		if n > 0 {
			line = append(line, ',')
		}
		line = append(line, '\n')
		line = r.AppendJSON(line)
		if _, err := bw.Write(line); err != nil {
			return err
		}
		line = line[:0]
		n++
	}
	if n > 0 {
		line = append(line, '\n')
	}
	line = append(line, "]\n"...)
	if _, err := bw.Write(line); err != nil {
		return err
	}
	return bw.Flush()
}
