package sd

import (
	"errors"
	"math"
	"reflect"
	"strconv"
)

// UnmarshalTypeError describes a Value that cannot be stored in a Go value:
// a kind mismatch, or a number that overflows the Go type.
type UnmarshalTypeError struct {
	Kind     Kind         // kind of the BPXSD value
	Type     reflect.Type // Go type it could not be stored in
	Path     string       // where, such as .Tags[2]
	Overflow bool         // the number does not fit in Type
	Value    string       // the value, for overflows
}

func (e *UnmarshalTypeError) Error() string {
	if e.Overflow {
		return "sd: " + e.Kind.String() + " value " + e.Value + " overflows Go type " + e.Type.String() + pathSuffix(e.Path)
	}
	return "sd: cannot unmarshal " + e.Kind.String() + " into Go value of type " + e.Type.String() + pathSuffix(e.Path)
}

// errNotPointer is returned for an Unmarshal target that is not a non-nil
// pointer.
var errNotPointer = errors.New("sd: Unmarshal needs a non-nil pointer")

// Unmarshal decodes the BPXSD object at the start of data with the default
// decode options and stores it in the value v points to. See
// [UnmarshalValue] for the mapping.
func Unmarshal(data []byte, v any) error {
	return DecodeOptions{}.Unmarshal(data, v)
}

// Unmarshal is like the package-level Unmarshal with the options opts.
func (opts DecodeOptions) Unmarshal(data []byte, v any) error {
	o, err := opts.Decode(data)
	if err != nil {
		return err
	}
	return UnmarshalValue(o.Value(), v)
}

// UnmarshalValue stores src in the value v points to, the inverse of
// [MarshalValue]:
//
//   - integers go into any Go integer type they fit in, and into floats;
//     a value that does not fit is an *UnmarshalTypeError with Overflow;
//   - floats go into float32 or float64 (a finite Float64 beyond the
//     float32 range overflows);
//   - Arrays go into slices and arrays (extra elements are dropped, as in
//     encoding/json), Objects into structs (by the hash of the field name;
//     unknown keys are ignored) and maps with string keys (the key is the
//     name when known, else "#" and 16 hex digits);
//   - Null sets pointers, slices, maps and interfaces to nil and leaves
//     other values unchanged;
//   - an empty interface receives nil, bool, the Go integer or float type
//     of the value's width, string, []any or map[string]any;
//   - Value, Object and Unmarshaler targets receive src itself.
//
// The __debug__ property is skipped everywhere.
func UnmarshalValue(src Value, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errNotPointer
	}
	return unmarshalInto(src, rv.Elem())
}

func unmarshalInto(src Value, rv reflect.Value) error {
	t := rv.Type()
	if rv.CanAddr() && reflect.PointerTo(t).Implements(unmarshalerType) && t.Kind() != reflect.Pointer {
		return rv.Addr().Interface().(Unmarshaler).UnmarshalSD(src)
	}
	switch t {
	case valueType:
		rv.Set(reflect.ValueOf(src))
		return nil
	case objectType:
		if src.kind != KindObject {
			return mismatch(src, t)
		}
		rv.Set(reflect.ValueOf(*src.ref))
		return nil
	}
	if src.kind == KindNull {
		switch t.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
			rv.SetZero()
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			rv.Set(reflect.New(t.Elem()))
		}
		return unmarshalInto(src, rv.Elem())
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return mismatch(src, t)
		}
		if x := toAny(src); x != nil {
			rv.Set(reflect.ValueOf(x))
		} else {
			rv.SetZero()
		}
		return nil
	case reflect.Bool:
		b, ok := src.AsBool()
		if !ok {
			return mismatch(src, t)
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := src.AsInt()
		if !ok {
			if src.kind.isUnsigned() {
				return overflow(src, t)
			}
			return mismatch(src, t)
		}
		if rv.OverflowInt(i) {
			return overflow(src, t)
		}
		rv.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, ok := src.AsUint()
		if !ok {
			if src.kind.isSigned() {
				return overflow(src, t)
			}
			return mismatch(src, t)
		}
		if rv.OverflowUint(u) {
			return overflow(src, t)
		}
		rv.SetUint(u)
	case reflect.Float32, reflect.Float64:
		f, ok := src.AsFloat()
		switch {
		case ok:
		case src.kind.isUnsigned():
			f = float64(src.num)
		case src.kind.isSigned():
			f = float64(int64(src.num))
		default:
			return mismatch(src, t)
		}
		if !math.IsInf(f, 0) && !math.IsNaN(f) && rv.OverflowFloat(f) {
			return overflow(src, t)
		}
		rv.SetFloat(f)
	case reflect.String:
		s, ok := src.AsString()
		if !ok {
			return mismatch(src, t)
		}
		rv.SetString(s)
	case reflect.Slice:
		elems := src.Array()
		if src.kind != KindArray {
			return mismatch(src, t)
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i := range elems {
			if err := unmarshalInto(elems[i], s.Index(i)); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		rv.Set(s)
	case reflect.Array:
		elems := src.Array()
		if src.kind != KindArray {
			return mismatch(src, t)
		}
		for i := 0; i < rv.Len(); i++ {
			if i >= len(elems) {
				rv.Index(i).SetZero()
				continue
			}
			if err := unmarshalInto(elems[i], rv.Index(i)); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
	case reflect.Map:
		if src.kind != KindObject || t.Key().Kind() != reflect.String {
			return mismatch(src, t)
		}
		return unmarshalMap(src.ref, rv)
	case reflect.Struct:
		if src.kind != KindObject {
			return mismatch(src, t)
		}
		return unmarshalStruct(src.ref, rv)
	default:
		return mismatch(src, t)
	}
	return nil
}

func unmarshalMap(o *Object, rv reflect.Value) error {
	t := rv.Type()
	if rv.IsNil() {
		rv.Set(reflect.MakeMapWithSize(t, o.Len()))
	}
	for i, h := range o.keys {
		if h == debugHash {
			continue
		}
		key := objectKey(o, i)
		ev := reflect.New(t.Elem()).Elem()
		if err := unmarshalInto(o.vals[i], ev); err != nil {
			return prefixPath(err, "."+key)
		}
		rv.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), ev)
	}
	return nil
}

// objectKey returns the name of entry i, or "#" and its hash in hex.
func objectKey(o *Object, i int) string {
	if n := o.nameAt(i); n != "" {
		return n
	}
	return "#" + hex16(o.keys[i])
}

func unmarshalStruct(o *Object, rv reflect.Value) error {
	info := cachedStructInfo(rv.Type())
	for i, h := range o.keys {
		if h == debugHash {
			continue
		}
		f := info.byHash(h)
		if f == nil {
			continue
		}
		fv := rv
		for j, x := range f.index {
			if j > 0 && fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					if !fv.CanSet() {
						break // unexported embedded pointer: cannot allocate
					}
					fv.Set(reflect.New(fv.Type().Elem()))
				}
				fv = fv.Elem()
			}
			fv = fv.Field(x)
		}
		if !fv.CanSet() {
			continue
		}
		if err := unmarshalInto(o.vals[i], fv); err != nil {
			return prefixPath(err, "."+f.name)
		}
	}
	return nil
}

// toAny converts src to the Go value an empty interface receives.
func toAny(src Value) any {
	switch src.kind {
	case KindBool:
		return src.num != 0
	case KindUint8:
		return uint8(src.num)
	case KindUint16:
		return uint16(src.num)
	case KindUint32:
		return uint32(src.num)
	case KindUint64:
		return src.num
	case KindInt8:
		return int8(src.num)
	case KindInt16:
		return int16(src.num)
	case KindInt32:
		return int32(src.num)
	case KindInt64:
		return int64(src.num)
	case KindFloat32:
		return math.Float32frombits(uint32(src.num))
	case KindFloat64:
		return math.Float64frombits(src.num)
	case KindString:
		return src.str
	case KindArray:
		out := make([]any, len(src.ref.vals))
		for i, e := range src.ref.vals {
			out[i] = toAny(e)
		}
		return out
	case KindObject:
		o := src.ref
		out := make(map[string]any, o.Len())
		for i, h := range o.keys {
			if h != debugHash {
				out[objectKey(o, i)] = toAny(o.vals[i])
			}
		}
		return out
	}
	return nil
}

func mismatch(src Value, t reflect.Type) error {
	return &UnmarshalTypeError{Kind: src.kind, Type: t}
}

func overflow(src Value, t reflect.Type) error {
	var s string
	if src.kind.isSigned() {
		s = strconv.FormatInt(int64(src.num), 10)
	} else if src.kind.isUnsigned() {
		s = strconv.FormatUint(src.num, 10)
	} else {
		s = formatFloat(src)
	}
	return &UnmarshalTypeError{Kind: src.kind, Type: t, Overflow: true, Value: s}
}
