package sd

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Plain JSON: a view for people. See MarshalJSON.

// MarshalJSON returns the plain JSON view of o: an object whose keys are
// the property names where known and "#" followed by 16 hex digits of the
// hash otherwise, without the __debug__ property. Integers and finite
// floats are JSON numbers, NaN and infinities the strings "NaN", "+Inf" and
// "-Inf". The view loses kinds and widths; [MarshalTypedJSON] does not.
func (o *Object) MarshalJSON() ([]byte, error) {
	return appendPlainObject(nil, o), nil
}

// MarshalJSON returns the plain JSON view of v (see [Object.MarshalJSON]).
func (v Value) MarshalJSON() ([]byte, error) {
	return appendPlain(nil, v), nil
}

func appendPlainObject(b []byte, o *Object) []byte {
	b = append(b, '{')
	first := true
	for i := 0; i < o.Len(); i++ {
		if o.keys[i] == debugHash {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if name := o.nameAt(i); name != "" {
			b = appendJSONString(b, name)
		} else {
			b = append(b, `"#`...)
			b = appendHex16(b, o.keys[i])
			b = append(b, '"')
		}
		b = append(b, ':')
		b = appendPlain(b, o.vals[i])
	}
	return append(b, '}')
}

func appendPlain(b []byte, v Value) []byte {
	switch v.kind {
	case KindNull:
		return append(b, "null"...)
	case KindBool:
		return strconv.AppendBool(b, v.num != 0)
	case KindUint8, KindUint16, KindUint32, KindUint64, KindInt8, KindInt16, KindInt32, KindInt64, KindFloat32, KindFloat64:
		return appendNumber(b, v, false)
	case KindString:
		return appendJSONString(b, v.str)
	case KindArray:
		b = append(b, '[')
		for i, e := range v.ref.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendPlain(b, e)
		}
		return append(b, ']')
	case KindObject:
		return appendPlainObject(b, v.ref)
	}
	return append(b, "null"...)
}

// appendNumber appends an integer or float value as a JSON number, or a
// NaN or infinity as a JSON string: exact NaN payloads when exact is set.
func appendNumber(b []byte, v Value, exact bool) []byte {
	switch {
	case v.kind.isUnsigned():
		return strconv.AppendUint(b, v.num, 10)
	case v.kind.isSigned():
		return strconv.AppendInt(b, int64(v.num), 10)
	}
	f, _ := v.AsFloat()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b = append(b, '"')
		b = appendSpecialFloat(b, v, f, exact)
		return append(b, '"')
	}
	return appendFiniteFloat(b, v, f)
}

// appendFiniteFloat appends the shortest decimal that reads back to the
// same bits at the value's width.
func appendFiniteFloat(b []byte, v Value, f float64) []byte {
	bits := 64
	if v.kind == KindFloat32 {
		bits = 32
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// appendSpecialFloat spells a NaN or an infinity: "+Inf", "-Inf", and
// "NaN", or with exact "NaN:0x<bits>" when exact is set.
func appendSpecialFloat(b []byte, v Value, f float64, exact bool) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case !exact:
		return append(b, "NaN"...)
	}
	b = append(b, "NaN:0x"...)
	if v.kind == KindFloat32 {
		return appendHex(b, v.num, 8)
	}
	return appendHex(b, v.num, 16)
}

// appendHex16 appends h as 16 lower-case hex digits.
func appendHex16(b []byte, h uint64) []byte { return appendHex(b, h, 16) }

// appendHex appends the low digits hex digits of h.
func appendHex(b []byte, h uint64, digits int) []byte {
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(h>>uint(shift))&0xf])
	}
	return b
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as in encoding/json.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
