package sd

import (
	"math"
	"strconv"
)

// Value is one BPXSD value: Null, a Bool, a fixed-width integer or float, a
// String, an Array or an Object. The zero Value is Null. Values are small
// and passed by value; Arrays and Objects share their contents when copied.
//
// Numbers keep their exact width and bits: a Uint16 stays a Uint16, a
// Float32 NaN keeps its payload, -0 stays -0.
type Value struct {
	kind Kind
	num  uint64  // bool (0/1), integer (sign-extended) or float bits
	str  string  // KindString
	ref  *Object // KindObject, or the elements of a KindArray
}

// Null returns the Null value (the zero Value).
func Null() Value { return Value{} }

// Bool returns a Bool value.
func Bool(b bool) Value {
	if b {
		return Value{kind: KindBool, num: 1}
	}
	return Value{kind: KindBool}
}

// Uint8 returns a Uint8 value.
func Uint8(v uint8) Value { return Value{kind: KindUint8, num: uint64(v)} }

// Uint16 returns a Uint16 value.
func Uint16(v uint16) Value { return Value{kind: KindUint16, num: uint64(v)} }

// Uint32 returns a Uint32 value.
func Uint32(v uint32) Value { return Value{kind: KindUint32, num: uint64(v)} }

// Uint64 returns a Uint64 value.
func Uint64(v uint64) Value { return Value{kind: KindUint64, num: v} }

// Int8 returns an Int8 value.
func Int8(v int8) Value { return Value{kind: KindInt8, num: uint64(int64(v))} }

// Int16 returns an Int16 value.
func Int16(v int16) Value { return Value{kind: KindInt16, num: uint64(int64(v))} }

// Int32 returns an Int32 value.
func Int32(v int32) Value { return Value{kind: KindInt32, num: uint64(int64(v))} }

// Int64 returns an Int64 value.
func Int64(v int64) Value { return Value{kind: KindInt64, num: uint64(v)} }

// Float32 returns a Float32 value (the BPXSD "Float").
func Float32(v float32) Value { return Value{kind: KindFloat32, num: uint64(math.Float32bits(v))} }

// Float64 returns a Float64 value (the BPXSD "Double").
func Float64(v float64) Value { return Value{kind: KindFloat64, num: math.Float64bits(v)} }

// String returns a String value. Encoding fails for a string that holds a
// NUL byte or invalid UTF-8, because the wire format cannot carry it.
func String(s string) Value { return Value{kind: KindString, str: s} }

// Array returns an Array value holding vals (not copied). At most 255
// elements can be encoded.
func Array(vals ...Value) Value {
	return Value{kind: KindArray, ref: &Object{vals: vals}}
}

// Kind returns the type of v.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is Null.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsBool returns the boolean of a Bool value; ok is false for other kinds.
func (v Value) AsBool() (b, ok bool) {
	return v.num != 0, v.kind == KindBool
}

// AsUint returns the value of any integer kind that is not negative;
// ok is false for other kinds and for negative integers.
func (v Value) AsUint() (u uint64, ok bool) {
	switch {
	case v.kind.isUnsigned():
		return v.num, true
	case v.kind.isSigned() && int64(v.num) >= 0:
		return v.num, true
	}
	return 0, false
}

// AsInt returns the value of any integer kind that fits in an int64;
// ok is false for other kinds and for Uint64 values above MaxInt64.
func (v Value) AsInt() (i int64, ok bool) {
	switch {
	case v.kind.isSigned():
		return int64(v.num), true
	case v.kind.isUnsigned() && v.num <= math.MaxInt64:
		return int64(v.num), true
	}
	return 0, false
}

// AsFloat returns the value of a Float32 or Float64 (a Float32 is widened
// exactly); ok is false for other kinds.
func (v Value) AsFloat() (f float64, ok bool) {
	switch v.kind {
	case KindFloat32:
		return float64(math.Float32frombits(uint32(v.num))), true
	case KindFloat64:
		return math.Float64frombits(v.num), true
	}
	return 0, false
}

// AsString returns the text of a String value; ok is false for other kinds.
func (v Value) AsString() (s string, ok bool) {
	return v.str, v.kind == KindString
}

// Array returns the elements of an Array value, or nil for other kinds.
// The slice shares storage with v.
func (v Value) Array() []Value {
	if v.kind != KindArray {
		return nil
	}
	return v.ref.vals
}

// Object returns the object of an Object value, or nil for other kinds.
func (v Value) Object() *Object {
	if v.kind != KindObject {
		return nil
	}
	return v.ref
}

// Equal reports whether v and w are the same value: the same kind and the
// same bits (so a NaN equals a NaN with the same payload, and -0 differs
// from +0), equal elements in order for Arrays, and for Objects the same
// set of keys with equal values, in any order (the reference writes keys in
// random order). Key names are not compared. v and w must not contain
// themselves.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindString:
		return v.str == w.str
	case KindArray:
		a, b := v.ref.vals, w.ref.vals
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !a[i].Equal(b[i]) {
				return false
			}
		}
		return true
	case KindObject:
		return v.ref.Equal(w.ref)
	}
	return v.num == w.num
}

// String returns a short debugging form of v, such as u16(7), "text",
// [3 elements] or {2 entries}. Use the JSON forms for full output.
func (v Value) String() string {
	switch v.kind {
	case KindNull:
		return "null"
	case KindBool:
		return strconv.FormatBool(v.num != 0)
	case KindString:
		return strconv.Quote(v.str)
	case KindArray:
		return "[" + strconv.Itoa(len(v.ref.vals)) + " elements]"
	case KindObject:
		return "{" + strconv.Itoa(v.ref.Len()) + " entries}"
	case KindFloat32, KindFloat64:
		return v.kind.String() + "(" + formatFloat(v) + ")"
	case KindUint8, KindUint16, KindUint32, KindUint64:
		return v.kind.String() + "(" + strconv.FormatUint(v.num, 10) + ")"
	}
	return v.kind.String() + "(" + strconv.FormatInt(int64(v.num), 10) + ")"
}

// formatFloat formats a float value with the shortest decimal form that
// reads back to the same bits at its width; NaN and infinities are spelled
// NaN, +Inf and -Inf.
func formatFloat(v Value) string {
	f, _ := v.AsFloat()
	bits := 64
	if v.kind == KindFloat32 {
		bits = 32
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}
