package table

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Row is one row of a [Table]. It refers to the table's section.
type Row struct {
	t    *Table
	b    []byte // the row's stride bytes
	slot int
}

// Slot returns the row's position in the section, counting free rows.
func (r Row) Slot() int { return r.slot }

// Free reports whether the row is marked free (deleted).
func (r Row) Free() bool { return r.b[r.t.rowSize] == freeFlag }

// cell returns the bytes of column i.
func (r Row) cell(i int) []byte {
	return r.b[r.t.offs[i]:][:r.t.Columns[i].Size()]
}

// column returns the index of the column called name, or an ErrNoColumn
// error.
func (r Row) column(name string) (int, error) {
	i := r.t.Column(name)
	if i < 0 {
		return -1, fmt.Errorf("%w: %q", ErrNoColumn, name)
	}
	return i, nil
}

// Value returns the value of the column called name; see [Row.ValueAt].
func (r Row) Value(name string) (any, error) {
	i, err := r.column(name)
	if err != nil {
		return nil, err
	}
	return r.ValueAt(i), nil
}

// ValueAt returns the value of column i as a Go value: nil for Null; a
// bool, uint8 to uint64, int8 to int64, float32 or float64 for a scalar;
// a string for Varchar, with the NUL bytes at both ends trimmed; and for
// an array a slice of the scalar type, such as []uint16 (a Uint8 array is
// a []byte). It panics if i is out of range.
func (r Row) ValueAt(i int) any {
	c := r.t.Columns[i]
	b := r.cell(i)
	switch {
	case c.Type == Null:
		return nil
	case c.Type == Varchar:
		return varchar(b)
	case c.Len == 1:
		return scalar(c.Type, b)
	}
	return array(c.Type, b, int(c.Len))
}

// varchar returns the string of a Varchar cell.
func varchar(b []byte) string { return string(bytes.Trim(b, "\x00")) }

// scalar decodes one element of type t from the start of b.
func scalar(t Type, b []byte) any {
	le := binary.LittleEndian
	switch t {
	case Bool:
		return b[0] != 0
	case Uint8:
		return b[0]
	case Uint16:
		return le.Uint16(b)
	case Uint32:
		return le.Uint32(b)
	case Uint64:
		return le.Uint64(b)
	case Int8:
		return int8(b[0])
	case Int16:
		return int16(le.Uint16(b))
	case Int32:
		return int32(le.Uint32(b))
	case Int64:
		return int64(le.Uint64(b))
	case Float32:
		return math.Float32frombits(le.Uint32(b))
	case Float64:
		return math.Float64frombits(le.Uint64(b))
	}
	return nil
}

// array decodes n elements of type t from b.
func array(t Type, b []byte, n int) any {
	le := binary.LittleEndian
	switch t {
	case Bool:
		s := make([]bool, n)
		for i := range s {
			s[i] = b[i] != 0
		}
		return s
	case Uint8:
		return append([]byte{}, b[:n]...)
	case Uint16:
		return fill(n, func(i int) uint16 { return le.Uint16(b[2*i:]) })
	case Uint32:
		return fill(n, func(i int) uint32 { return le.Uint32(b[4*i:]) })
	case Uint64:
		return fill(n, func(i int) uint64 { return le.Uint64(b[8*i:]) })
	case Int8:
		return fill(n, func(i int) int8 { return int8(b[i]) })
	case Int16:
		return fill(n, func(i int) int16 { return int16(le.Uint16(b[2*i:])) })
	case Int32:
		return fill(n, func(i int) int32 { return int32(le.Uint32(b[4*i:])) })
	case Int64:
		return fill(n, func(i int) int64 { return int64(le.Uint64(b[8*i:])) })
	case Float32:
		return fill(n, func(i int) float32 { return math.Float32frombits(le.Uint32(b[4*i:])) })
	case Float64:
		return fill(n, func(i int) float64 { return math.Float64frombits(le.Uint64(b[8*i:])) })
	}
	return nil
}

func fill[T any](n int, at func(int) T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = at(i)
	}
	return s
}

// scalarColumn returns the index of the scalar column called name whose
// type satisfies ok, or an ErrNoColumn or ErrType error.
func (r Row) scalarColumn(name, want string, ok func(Type) bool) (int, error) {
	i, err := r.column(name)
	if err != nil {
		return -1, err
	}
	c := r.t.Columns[i]
	if !ok(c.Type) || c.Type != Varchar && c.Len != 1 {
		return -1, fmt.Errorf("%w: column %q is %s, not %s", ErrType, name, describe(c), want)
	}
	return i, nil
}

// describe names a column's type, with its length for an array.
func describe(c Column) string {
	if c.IsArray() {
		return fmt.Sprintf("%s[%d]", c.Type, c.Len)
	}
	return c.Type.String()
}

// Bool returns the value of the Bool column called name.
func (r Row) Bool(name string) (bool, error) {
	i, err := r.scalarColumn(name, "bool", func(t Type) bool { return t == Bool })
	if err != nil {
		return false, err
	}
	return r.cell(i)[0] != 0, nil
}

// Int returns the value of the integer column called name, of any width
// and signedness. A Uint64 value above math.MaxInt64 is an ErrRange error.
func (r Row) Int(name string) (int64, error) {
	i, err := r.scalarColumn(name, "an integer", func(t Type) bool { return t.isSigned() || t.isUnsigned() })
	if err != nil {
		return 0, err
	}
	mag, neg, _ := intParts(r.ValueAt(i))
	if !neg && mag > math.MaxInt64 {
		return 0, fmt.Errorf("%w: column %q holds %d, more than an int64", ErrRange, name, mag)
	}
	if neg {
		return -int64(mag), nil
	}
	return int64(mag), nil
}

// Uint returns the value of the integer column called name, of any width
// and signedness. A negative value is an ErrRange error.
func (r Row) Uint(name string) (uint64, error) {
	i, err := r.scalarColumn(name, "an integer", func(t Type) bool { return t.isSigned() || t.isUnsigned() })
	if err != nil {
		return 0, err
	}
	mag, neg, _ := intParts(r.ValueAt(i))
	if neg && mag != 0 {
		return 0, fmt.Errorf("%w: column %q holds -%d, less than 0", ErrRange, name, mag)
	}
	return mag, nil
}

// Float returns the value of the Float32 or Float64 column called name.
func (r Row) Float(name string) (float64, error) {
	i, err := r.scalarColumn(name, "a float", Type.isFloat)
	if err != nil {
		return 0, err
	}
	if f, ok := r.ValueAt(i).(float32); ok {
		return float64(f), nil
	}
	return r.ValueAt(i).(float64), nil
}

// String returns the value of the Varchar column called name, with the
// NUL bytes at both ends trimmed.
func (r Row) String(name string) (string, error) {
	i, err := r.scalarColumn(name, "varchar", func(t Type) bool { return t == Varchar })
	if err != nil {
		return "", err
	}
	return varchar(r.cell(i)), nil
}

// intParts splits a Go integer into its magnitude and sign; ok is false
// for a value of another type.
func intParts(v any) (mag uint64, neg, ok bool) {
	var s int64
	switch v := v.(type) {
	case uint8:
		return uint64(v), false, true
	case uint16:
		return uint64(v), false, true
	case uint32:
		return uint64(v), false, true
	case uint64:
		return v, false, true
	case uint:
		return uint64(v), false, true
	case uintptr:
		return uint64(v), false, true
	case int8:
		s = int64(v)
	case int16:
		s = int64(v)
	case int32:
		s = int64(v)
	case int64:
		s = v
	case int:
		s = int64(v)
	default:
		return 0, false, false
	}
	if s < 0 {
		return uint64(-(s + 1)) + 1, true, true
	}
	return uint64(s), false, true
}
