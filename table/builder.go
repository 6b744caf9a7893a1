package table

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx/bpxerr"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// MaxColumns is the most columns a table holds: the count is a u16.
const MaxColumns = math.MaxUint16

// maxSectionSize is the most bytes a Builder's section may reach: a
// section's size is a u32. A variable so that tests can lower it.
var maxSectionSize int64 = math.MaxUint32

// Builder writes a table section: the header and columns, then one row per
// [Builder.Append]. New rows are zeroed before their values are written,
// so padding and unused Varchar bytes are 0, as in the reference. A
// Builder is not safe for concurrent use.
type Builder struct {
	cols    []Column
	offs    []int
	rowSize int
	stride  int
	start   int
	buf     []byte
}

// NewBuilder starts a table called name with the given columns, adding
// the table's name and then each column's name to strs (the order the
// reference adds them in). It fails for more than [MaxColumns] columns
// (bpx.ErrTooLarge), an unknown type ([ErrType]), a row larger than
// [MaxRowSize] ([ErrRowTooLarge]) or a name strs refuses. strs must not be
// nil.
func NewBuilder(strs *bpxstrings.Builder, name string, columns []Column) (*Builder, error) {
	if len(columns) > MaxColumns {
		return nil, fmt.Errorf("table: %d columns, more than %d: %w", len(columns), MaxColumns, bpxerr.ErrTooLarge)
	}
	b := &Builder{cols: append([]Column(nil), columns...), offs: make([]int, len(columns))}
	for i, c := range columns {
		if c.Type > maxType {
			return nil, fmt.Errorf("%w: column %d (%q) has %v", ErrType, i, c.Name, c.Type)
		}
		b.offs[i] = b.rowSize
		b.rowSize += c.Size()
		if b.rowSize > MaxRowSize {
			return nil, fmt.Errorf("%w: %d bytes at column %d (%q), more than %d", ErrRowTooLarge, b.rowSize, i, c.Name, MaxRowSize)
		}
	}
	b.stride = Stride(b.rowSize)
	b.start = headerSize + columnSize*len(columns)
	b.buf = make([]byte, b.start)
	off, err := strs.Add(name)
	if err != nil {
		return nil, fmt.Errorf("table name: %w", err)
	}
	le := binary.LittleEndian
	le.PutUint32(b.buf, off)
	le.PutUint16(b.buf[4:], uint16(len(columns)))
	for i, c := range columns {
		off, err := strs.Add(c.Name)
		if err != nil {
			return nil, fmt.Errorf("column %d name: %w", i, err)
		}
		e := b.buf[headerSize+i*columnSize:]
		le.PutUint32(e, off)
		e[4] = byte(c.Type)
		le.PutUint16(e[5:], c.Len)
	}
	return b, nil
}

// Append adds a row holding values, one per column in column order, and
// returns its slot. Each value must suit its column (the types
// [Row.ValueAt] returns are always accepted):
//
//   - Null: nil;
//   - Bool: a bool;
//   - integer types: any Go integer whose value fits ([ErrRange] if not);
//   - Float32: a float32, or a float64 rounded to float32 as the reference
//     does ([ErrRange] if it overflows); Float64: a float64 or a float32;
//   - Varchar: a string of valid UTF-8 of at most Len bytes that neither
//     starts nor ends with a NUL byte (it would not read back the same);
//   - an array column: a slice or array of exactly Len such elements.
//
// A row that would take the section past 4 GiB - 1 bytes, the most a
// section's u32 size can say, fails with an error matching
// bpx.ErrTooLarge. On error nothing is added.
func (b *Builder) Append(values ...any) (int, error) {
	if len(values) != len(b.cols) {
		return -1, fmt.Errorf("%w: %d values for %d columns", ErrType, len(values), len(b.cols))
	}
	if int64(len(b.buf))+int64(b.stride) > maxSectionSize {
		return -1, fmt.Errorf("table: row %d would take the section past %d bytes: %w", b.NumSlots(), maxSectionSize, bpxerr.ErrTooLarge)
	}
	n := len(b.buf)
	b.buf = append(b.buf, make([]byte, b.stride)...)
	row := b.buf[n:]
	for i, c := range b.cols {
		if err := put(row[b.offs[i]:][:c.Size()], c, values[i]); err != nil {
			b.buf = b.buf[:n]
			return -1, fmt.Errorf("column %d (%q): %w", i, c.Name, err)
		}
	}
	return b.NumSlots() - 1, nil
}

// SetFree marks the row in slot i free (deleted) or live again, as the
// reference does: the row keeps its bytes and its slot.
func (b *Builder) SetFree(i int, free bool) error {
	if i < 0 || i >= b.NumSlots() {
		return fmt.Errorf("%w: slot %d of %d", ErrRange, i, b.NumSlots())
	}
	var flag byte
	if free {
		flag = freeFlag
	}
	b.buf[b.start+i*b.stride+b.rowSize] = flag
	return nil
}

// NumSlots returns the number of rows appended, free ones included.
func (b *Builder) NumSlots() int { return (len(b.buf) - b.start) / b.stride }

// Bytes returns the section: header, columns and rows. The slice aliases
// the Builder's buffer: it is valid until the next Append or SetFree.
func (b *Builder) Bytes() []byte { return b.buf }

// put writes v into the cell of column c.
func put(cell []byte, c Column, v any) error {
	switch {
	case c.Type == Null:
		if v != nil {
			return fmt.Errorf("%w: %T for null", ErrType, v)
		}
		return nil
	case c.Type == Varchar:
		return putString(cell, v)
	case c.Len == 1:
		return putScalar(cell, c.Type, v)
	}
	if p, ok := v.([]byte); ok && c.Type == Uint8 && len(p) == len(cell) {
		copy(cell, p)
		return nil
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k != reflect.Slice && k != reflect.Array {
		return fmt.Errorf("%w: %T for %s", ErrType, v, describe(c))
	}
	if rv.Len() != int(c.Len) {
		return fmt.Errorf("%w: %d elements for %s", ErrType, rv.Len(), describe(c))
	}
	size := c.Type.Size()
	for j := range rv.Len() {
		if err := putScalar(cell[j*size:], c.Type, rv.Index(j).Interface()); err != nil {
			return fmt.Errorf("element %d: %w", j, err)
		}
	}
	return nil
}

func putString(cell []byte, v any) error {
	s, ok := v.(string)
	switch {
	case !ok:
		return fmt.Errorf("%w: %T for varchar", ErrType, v)
	case len(s) > len(cell):
		return fmt.Errorf("%w: %d bytes for varchar[%d]", ErrRange, len(s), len(cell))
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: string is not valid UTF-8", ErrType)
	case strings.HasPrefix(s, "\x00") || strings.HasSuffix(s, "\x00"):
		return fmt.Errorf("%w: string starts or ends with NUL, which reading trims", ErrRange)
	}
	copy(cell, s)
	return nil
}

// putScalar writes v as one element of type t at the start of b.
func putScalar(b []byte, t Type, v any) error {
	le := binary.LittleEndian
	switch {
	case t == Bool:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%w: %T for bool", ErrType, v)
		}
		if x {
			b[0] = 1
		}
		return nil
	case t.isFloat():
		return putFloat(b, t, v)
	}
	mag, neg, ok := intParts(v)
	if !ok {
		return fmt.Errorf("%w: %T for %s", ErrType, v, t)
	}
	bits := 8 * t.Size()
	var fits bool
	if t.isUnsigned() {
		fits = (!neg || mag == 0) && (bits == 64 || mag < 1<<bits)
	} else {
		limit := uint64(1) << (bits - 1)
		fits = mag < limit || neg && mag == limit
	}
	if !fits {
		sign := ""
		if neg {
			sign = "-"
		}
		return fmt.Errorf("%w: %s%d for %s", ErrRange, sign, mag, t)
	}
	x := mag
	if neg {
		x = -mag
	}
	switch bits {
	case 8:
		b[0] = byte(x)
	case 16:
		le.PutUint16(b, uint16(x))
	case 32:
		le.PutUint32(b, uint32(x))
	default:
		le.PutUint64(b, x)
	}
	return nil
}

func putFloat(b []byte, t Type, v any) error {
	var f64 float64
	switch x := v.(type) {
	case float32:
		if t == Float32 {
			binary.LittleEndian.PutUint32(b, math.Float32bits(x))
			return nil
		}
		f64 = float64(x)
	case float64:
		f64 = x
	default:
		return fmt.Errorf("%w: %T for %s", ErrType, v, t)
	}
	if t == Float64 {
		binary.LittleEndian.PutUint64(b, math.Float64bits(f64))
		return nil
	}
	f32 := float32(f64)
	if math.IsInf(float64(f32), 0) && !math.IsInf(f64, 0) {
		return fmt.Errorf("%w: %g for float32", ErrRange, f64)
	}
	binary.LittleEndian.PutUint32(b, math.Float32bits(f32))
	return nil
}
