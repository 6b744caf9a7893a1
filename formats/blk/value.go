package blk

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is the type id of a parameter value, as stored in byte 3 of a
// binary parameter record (DagorEngine's DataBlock::ParamType).
type Type uint8

// The 13 value types. TypeIPoint4 (0x0D) is missing from the wt_blk
// documentation but exists in the engine and in the files.
const (
	TypeString  Type = 0x01 // t: byte string
	TypeInt     Type = 0x02 // i: int32
	TypeReal    Type = 0x03 // r: float32
	TypePoint2  Type = 0x04 // p2: 2 × float32
	TypePoint3  Type = 0x05 // p3: 3 × float32
	TypePoint4  Type = 0x06 // p4: 4 × float32
	TypeIPoint2 Type = 0x07 // ip2: 2 × int32
	TypeIPoint3 Type = 0x08 // ip3: 3 × int32
	TypeBool    Type = 0x09 // b: boolean
	TypeColor   Type = 0x0A // c: E3DCOLOR, bytes B, G, R, A
	TypeMatrix  Type = 0x0B // m: TMatrix, 4 rows of 3 float32
	TypeInt64   Type = 0x0C // i64: int64
	TypeIPoint4 Type = 0x0D // ip4: 4 × int32
)

var typeInfo = [...]struct {
	suffix, name string
	size         int // bytes in the binary form (0 for strings)
	words        int // 32-bit words of the value
}{
	TypeString:  {"t", "string", 0, 0},
	TypeInt:     {"i", "int", 4, 1},
	TypeReal:    {"r", "real", 4, 1},
	TypePoint2:  {"p2", "point2", 8, 2},
	TypePoint3:  {"p3", "point3", 12, 3},
	TypePoint4:  {"p4", "point4", 16, 4},
	TypeIPoint2: {"ip2", "ipoint2", 8, 2},
	TypeIPoint3: {"ip3", "ipoint3", 12, 3},
	TypeBool:    {"b", "bool", 1, 1},
	TypeColor:   {"c", "color", 4, 1},
	TypeMatrix:  {"m", "matrix", 48, 12},
	TypeInt64:   {"i64", "int64", 8, 2},
	TypeIPoint4: {"ip4", "ipoint4", 16, 4},
}

// Valid reports whether t is one of the 13 value types.
func (t Type) Valid() bool { return t >= TypeString && t <= TypeIPoint4 }

// Suffix returns the type's suffix in BLK text ("t", "i", "p3", ...).
func (t Type) Suffix() string {
	if !t.Valid() {
		return ""
	}
	return typeInfo[t].suffix
}

// String returns a readable name of the type ("int", "point3", ...).
func (t Type) String() string {
	if !t.Valid() {
		return "type(0x" + strconv.FormatUint(uint64(t), 16) + ")"
	}
	return typeInfo[t].name
}

// Size returns the size of a value of type t in the binary form: the
// payload size for wide values, 4 or less for inline values and 0 for
// strings.
func (t Type) Size() int {
	if !t.Valid() {
		return 0
	}
	return typeInfo[t].size
}

// inline reports whether the value is stored in the param record itself.
func (t Type) inline() bool { return t != TypeString && t.Size() <= 4 }

// TypeFromSuffix returns the type whose text suffix is s.
func TypeFromSuffix(s string) (Type, bool) {
	for t := TypeString; t <= TypeIPoint4; t++ {
		if typeInfo[t].suffix == s {
			return t, true
		}
	}
	return 0, false
}

// Color is an E3DCOLOR. In the binary form its bytes are B, G, R, A.
type Color struct{ R, G, B, A uint8 }

// Value is one typed parameter value. The zero Value is invalid (Type 0).
// Values are comparable with ==; floats compare by their bits, so a
// NaN equals itself.
type Value struct {
	typ Type
	w   [4]uint32 // the first 4 raw words, exactly as in the file
	// s is a string value, or for a matrix the little-endian bytes of
	// words 4 to 11 (which keeps Value small and comparable).
	s string
}

// raw returns the value's words and their count.
func (v *Value) raw() (w [12]uint32, n int) {
	copy(w[:4], v.w[:])
	if v.typ == TypeMatrix && len(v.s) == 32 {
		s := v.s
		for i := 4; i < 12; i++ {
			k := (i - 4) * 4
			w[i] = uint32(s[k]) | uint32(s[k+1])<<8 | uint32(s[k+2])<<16 | uint32(s[k+3])<<24
		}
	}
	if v.typ.Valid() {
		n = typeInfo[v.typ].words
	}
	return w, n
}

// makeValue builds a non-string value from its raw words.
func makeValue(t Type, w *[12]uint32) Value {
	v := Value{typ: t}
	copy(v.w[:], w[:4])
	if t == TypeMatrix {
		var b [32]byte
		for i := 4; i < 12; i++ {
			binary.LittleEndian.PutUint32(b[(i-4)*4:], w[i])
		}
		v.s = string(b[:])
	}
	return v
}

// Type returns the value's type.
func (v Value) Type() Type { return v.typ }

// Str returns a string value ("" for other types).
func (v Value) Str() string {
	if v.typ != TypeString {
		return ""
	}
	return v.s
}

// Int returns an int value.
func (v Value) Int() int32 { return int32(v.w[0]) }

// Real returns a real (float32) value.
func (v Value) Real() float32 { return math.Float32frombits(v.w[0]) }

// Bool returns a bool value.
func (v Value) Bool() bool { return v.w[0] != 0 }

// Int64 returns an int64 value.
func (v Value) Int64() int64 { return int64(uint64(v.w[0]) | uint64(v.w[1])<<32) }

// Color returns a color value.
func (v Value) Color() Color {
	u := v.w[0]
	return Color{B: uint8(u), G: uint8(u >> 8), R: uint8(u >> 16), A: uint8(u >> 24)}
}

// Floats returns the components of a point2/3/4 or matrix value (2, 3, 4
// or 12 floats), or of a real value (1 float).
func (v Value) Floats() []float32 {
	switch v.typ {
	case TypeReal, TypePoint2, TypePoint3, TypePoint4, TypeMatrix:
	default:
		return nil
	}
	w, n := v.raw()
	f := make([]float32, n)
	for i := range f {
		f[i] = math.Float32frombits(w[i])
	}
	return f
}

// Ints returns the components of an ipoint2/3/4 value, or of an int
// value (1 int).
func (v Value) Ints() []int32 {
	switch v.typ {
	case TypeInt, TypeIPoint2, TypeIPoint3, TypeIPoint4:
	default:
		return nil
	}
	n := typeInfo[v.typ].words
	r := make([]int32, n)
	for i := range r {
		r[i] = int32(v.w[i])
	}
	return r
}

// Matrix returns a matrix value: 4 rows of 3 floats, row 3 being the
// translation.
func (v Value) Matrix() [12]float32 {
	var m [12]float32
	if v.typ != TypeMatrix {
		return m
	}
	w, _ := v.raw()
	for i := range m {
		m[i] = math.Float32frombits(w[i])
	}
	return m
}

// Str returns a string value. A string holding a NUL byte cannot be
// encoded in binary BLK.
func Str(s string) Value { return Value{typ: TypeString, s: s} }

// Int returns an int value.
func Int(i int32) Value { return Value{typ: TypeInt, w: [4]uint32{uint32(i)}} }

// Real returns a real (float32) value.
func Real(f float32) Value { return Value{typ: TypeReal, w: [4]uint32{math.Float32bits(f)}} }

// Bool returns a bool value.
func Bool(b bool) Value {
	v := Value{typ: TypeBool}
	if b {
		v.w[0] = 1
	}
	return v
}

// Int64 returns an int64 value.
func Int64(i int64) Value {
	return Value{typ: TypeInt64, w: [4]uint32{uint32(i), uint32(uint64(i) >> 32)}}
}

// ColorValue returns a color value.
func ColorValue(c Color) Value {
	return Value{typ: TypeColor, w: [4]uint32{uint32(c.B) | uint32(c.G)<<8 | uint32(c.R)<<16 | uint32(c.A)<<24}}
}

func floatsValue(t Type, f ...float32) Value {
	var w [12]uint32
	for i, x := range f {
		w[i] = math.Float32bits(x)
	}
	return makeValue(t, &w)
}

func intsValue(t Type, n ...int32) Value {
	v := Value{typ: t}
	for i, x := range n {
		v.w[i] = uint32(x)
	}
	return v
}

// Point2 returns a point2 value.
func Point2(x, y float32) Value { return floatsValue(TypePoint2, x, y) }

// Point3 returns a point3 value.
func Point3(x, y, z float32) Value { return floatsValue(TypePoint3, x, y, z) }

// Point4 returns a point4 value.
func Point4(x, y, z, w float32) Value { return floatsValue(TypePoint4, x, y, z, w) }

// IPoint2 returns an ipoint2 value.
func IPoint2(x, y int32) Value { return intsValue(TypeIPoint2, x, y) }

// IPoint3 returns an ipoint3 value.
func IPoint3(x, y, z int32) Value { return intsValue(TypeIPoint3, x, y, z) }

// IPoint4 returns an ipoint4 value.
func IPoint4(x, y, z, w int32) Value { return intsValue(TypeIPoint4, x, y, z, w) }

// Matrix returns a matrix value from 4 rows of 3 floats.
func Matrix(m [12]float32) Value { return floatsValue(TypeMatrix, m[:]...) }

// GoString renders the value for debugging and test failures.
func (v Value) GoString() string {
	if v.typ == TypeString {
		return "blk.Str(" + strconv.Quote(v.s) + ")"
	}
	w, n := v.raw()
	return fmt.Sprintf("blk.Value{%s %v}", v.typ, w[:n])
}

// Param is one named parameter of a block.
type Param struct {
	Name  string
	Value Value
}

// Block is a DataBlock: a name, ordered parameters and ordered
// sub-blocks. Names may repeat among params and among blocks. The root
// block of a file is usually unnamed (""); the engine keeps a root's name
// (it writes one when it saves a sub-block to a file), and so do the binary
// kinds, BPXSD and typed JSON here. Text and JSON have no place for it and
// leave it out, as the engine's text writer does.
type Block struct {
	Name   string
	Params []Param
	Blocks []*Block
}

// Add appends a parameter and returns b.
func (b *Block) Add(name string, v Value) *Block {
	b.Params = append(b.Params, Param{name, v})
	return b
}

// AddBlock appends a new empty sub-block named name and returns it.
func (b *Block) AddBlock(name string) *Block {
	c := &Block{Name: name}
	b.Blocks = append(b.Blocks, c)
	return c
}

// Param returns the value of the first parameter named name.
func (b *Block) Param(name string) (Value, bool) {
	for i := range b.Params {
		if b.Params[i].Name == name {
			return b.Params[i].Value, true
		}
	}
	return Value{}, false
}

// Child returns the first sub-block named name, or nil.
func (b *Block) Child(name string) *Block {
	for _, c := range b.Blocks {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// splitIndex splits "name[3]" into ("name", 3); a plain name has index 0.
func splitIndex(elem string) (string, int) {
	if !strings.HasSuffix(elem, "]") {
		return elem, 0
	}
	i := strings.LastIndexByte(elem, '[')
	if i < 0 {
		return elem, 0
	}
	n, err := strconv.Atoi(elem[i+1 : len(elem)-1])
	if err != nil || n < 0 {
		return elem, 0
	}
	return elem[:i], n
}

// LookupBlock follows a slash-separated path of sub-block names from b.
// An element "name[i]" selects the i-th (0-based) sub-block of that name,
// so duplicates are reachable. The empty path returns b.
func (b *Block) LookupBlock(path string) *Block {
	if path == "" {
		return b
	}
	cur := b
	for _, elem := range strings.Split(path, "/") {
		name, idx := splitIndex(elem)
		var next *Block
		for _, c := range cur.Blocks {
			if c.Name == name {
				if idx == 0 {
					next = c
					break
				}
				idx--
			}
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// Lookup returns the parameter at path: sub-block names separated by
// slashes, then the parameter name, e.g. "alpha/gamma/vec2i". Any element
// may carry an index "[i]" to select the i-th duplicate. Names that hold
// a slash, or end in "[n]", cannot be reached by path: use the fields.
func (b *Block) Lookup(path string) (Value, bool) {
	dir, last := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, last = path[:i], path[i+1:]
	}
	blk := b.LookupBlock(dir)
	if blk == nil {
		return Value{}, false
	}
	name, idx := splitIndex(last)
	for i := range blk.Params {
		if blk.Params[i].Name == name {
			if idx == 0 {
				return blk.Params[i].Value, true
			}
			idx--
		}
	}
	return Value{}, false
}

// Equal reports whether a and b hold the same tree: names, parameter
// types and values (floats by bits), and order.
func Equal(a, b *Block) bool {
	if a.Name != b.Name || len(a.Params) != len(b.Params) || len(a.Blocks) != len(b.Blocks) {
		return false
	}
	for i := range a.Params {
		if a.Params[i] != b.Params[i] {
			return false
		}
	}
	for i := range a.Blocks {
		if !Equal(a.Blocks[i], b.Blocks[i]) {
			return false
		}
	}
	return true
}
