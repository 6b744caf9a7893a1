package table

import "strconv"

// Type is the type code of a column.
type Type uint8

// The column types, with their codes.
const (
	Null    Type = iota // no value; takes no bytes
	Bool                // 1 byte, 0 false, anything else true
	Uint8               // 1 byte
	Uint16              // 2 bytes
	Uint32              // 4 bytes
	Uint64              // 8 bytes
	Int8                // 1 byte
	Int16               // 2 bytes
	Int32               // 4 bytes
	Int64               // 8 bytes
	Float32             // 4 bytes, IEEE 754
	Float64             // 8 bytes, IEEE 754
	Varchar             // 1 byte of UTF-8 per unit of length
)

const maxType = Varchar

var typeNames = [...]string{"null", "bool", "uint8", "uint16", "uint32", "uint64",
	"int8", "int16", "int32", "int64", "float32", "float64", "varchar"}

var typeSizes = [...]int{0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 1}

// String returns the type's name in lower case, such as "uint32", or
// "Type(N)" for an unknown code.
func (t Type) String() string {
	if t <= maxType {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Size returns the number of bytes one element of the type takes in a
// row, or 0 for an unknown code.
func (t Type) Size() int {
	if t <= maxType {
		return typeSizes[t]
	}
	return 0
}

func (t Type) isUnsigned() bool { return t >= Uint8 && t <= Uint64 }
func (t Type) isSigned() bool   { return t >= Int8 && t <= Int64 }
func (t Type) isFloat() bool    { return t == Float32 || t == Float64 }

// Column describes one column of a table.
type Column struct {
	Name string // the column's name, from the strings section
	Type Type   // the type of its values
	// Len is the array length: 1 for a scalar, the number of elements of
	// an array (0 is an empty array), or the maximum length in bytes of a
	// Varchar string. It does not matter for Null.
	Len uint16
}

// Size returns the number of bytes the column takes in a row.
func (c Column) Size() int { return c.Type.Size() * int(c.Len) }

// IsArray reports whether the column holds an array: a Len other than 1,
// for a type other than Null and Varchar.
func (c Column) IsArray() bool { return c.Len != 1 && c.Type != Null && c.Type != Varchar }

// MaxRowSize is the largest row size, the sum of the column sizes, that
// [Decode] accepts and [NewBuilder] writes: 1 MiB, so a stride is at most
// 2 MiB.
const MaxRowSize = 1 << 20

// Stride returns the number of bytes a row of rowSize value bytes takes in
// a section: the next power of two above rowSize, which leaves room for the
// free flag at [rowSize]. It is 1 for a row size of 0.
func Stride(rowSize int) int {
	s := 1
	for s <= rowSize {
		s <<= 1
	}
	return s
}
