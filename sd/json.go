package sd

import (
	"math"
	"strconv"

	"github.com/gobpx/bpx/internal/jsonstr"
)

// Plain JSON: a view for people. See MarshalJSON.

// MarshalJSON returns the plain JSON view of o: an object whose keys are
// the property names where known and "#" followed by 16 hex digits of the
// hash otherwise, without the __debug__ property. Integers and finite
// floats are JSON numbers, NaN and infinities the strings "NaN", "+Inf" and
// "-Inf". The view loses kinds and widths; [MarshalTypedJSON] does not.
// Nesting deeper than DefaultMaxDepth fails with ErrDepth.
func (o *Object) MarshalJSON() ([]byte, error) {
	return o.Value().MarshalJSON()
}

// MarshalJSON returns the plain JSON view of v (see [Object.MarshalJSON]).
func (v Value) MarshalJSON() ([]byte, error) {
	b, ok := appendPlain(nil, v, 0)
	if !ok {
		return nil, &EncodeError{Err: ErrDepth}
	}
	return b, nil
}

// appendPlainObject appends o at the given depth; ok is false when the
// value nests deeper than DefaultMaxDepth.
func appendPlainObject(b []byte, o *Object, depth int) (_ []byte, ok bool) {
	if depth > DefaultMaxDepth {
		return b, false
	}
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
			b = jsonstr.Append(b, name, jsonstr.Go)
		} else {
			b = append(b, `"#`...)
			b = appendHex16(b, o.keys[i])
			b = append(b, '"')
		}
		b = append(b, ':')
		if b, ok = appendPlain(b, o.vals[i], depth); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendPlain appends v, held by a container at depth.
func appendPlain(b []byte, v Value, depth int) (_ []byte, ok bool) {
	switch v.kind {
	case KindNull:
		return append(b, "null"...), true
	case KindBool:
		return strconv.AppendBool(b, v.num != 0), true
	case KindString:
		return jsonstr.Append(b, v.str, jsonstr.Go), true
	case KindArray:
		if depth+1 > DefaultMaxDepth {
			return b, false
		}
		b = append(b, '[')
		for i, e := range v.ref.vals {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendPlain(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case KindObject:
		return appendPlainObject(b, v.ref, depth+1)
	}
	return appendNumber(b, v, false), true
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
