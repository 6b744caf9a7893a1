package sd

import "strconv"

// Kind is the type of a [Value]. Its numeric value is the BPXSD type code
// written on the wire (spec rev 2 §10.2.1).
type Kind uint8

// The BPXSD kinds, in type-code order.
const (
	KindNull    Kind = 0
	KindBool    Kind = 1
	KindUint8   Kind = 2
	KindUint16  Kind = 3
	KindUint32  Kind = 4
	KindUint64  Kind = 5
	KindInt8    Kind = 6
	KindInt16   Kind = 7
	KindInt32   Kind = 8
	KindInt64   Kind = 9
	KindFloat32 Kind = 10
	KindFloat64 Kind = 11
	KindString  Kind = 12
	KindArray   Kind = 13
	KindObject  Kind = 14

	maxKind = KindObject
)

// kindNames are the short names used by String and by the typed JSON form.
var kindNames = [...]string{
	KindNull: "null", KindBool: "bool",
	KindUint8: "u8", KindUint16: "u16", KindUint32: "u32", KindUint64: "u64",
	KindInt8: "i8", KindInt16: "i16", KindInt32: "i32", KindInt64: "i64",
	KindFloat32: "f32", KindFloat64: "f64",
	KindString: "string", KindArray: "array", KindObject: "object",
}

// String returns the short name of k ("u16", "f64", "object"...), or
// "Kind(N)" for a code that is not a BPXSD type.
func (k Kind) String() string {
	if k <= maxKind {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// size returns the number of value bytes of a fixed-size kind, or -1.
func (k Kind) size() int {
	switch k {
	case KindNull:
		return 0
	case KindBool, KindUint8, KindInt8:
		return 1
	case KindUint16, KindInt16:
		return 2
	case KindUint32, KindInt32, KindFloat32:
		return 4
	case KindUint64, KindInt64, KindFloat64:
		return 8
	}
	return -1
}

func (k Kind) isUnsigned() bool { return k >= KindUint8 && k <= KindUint64 }
func (k Kind) isSigned() bool   { return k >= KindInt8 && k <= KindInt64 }
func (k Kind) isFloat() bool    { return k == KindFloat32 || k == KindFloat64 }
