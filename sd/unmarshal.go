package sd

import (
	"errors"
	"math"
	"reflect"
	"slices"
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

// Error returns the message, ending with where the problem is.
func (e *UnmarshalTypeError) Error() string {
	if e.Overflow {
		return "sd: " + e.Kind.String() + " value " + e.Value + " overflows Go type " + e.Type.String() + pathSuffix(e.Path)
	}
	return "sd: cannot unmarshal " + e.Kind.String() + " into Go value of type " + e.Type.String() + pathSuffix(e.Path)
}

// errNotPointer is returned for an Unmarshal target that is not a non-nil
// pointer.
var errNotPointer = errors.New("sd: Unmarshal needs a non-nil pointer")

// Unmarshal decodes the BPXSD object at the start of data and stores it in
// the value v points to. See [UnmarshalValue] for the mapping.
func Unmarshal(data []byte, v any, opts ...DecodeOption) error {
	cfg, err := newDecodeConfig(opts)
	if err != nil {
		return err
	}
	return cfg.unmarshal(data, v)
}

func (opts decodeConfig) unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errNotPointer
	}
	scan := newDecoder(data, opts)
	scan.discard, scan.markDups = true, true
	scan.open = make([]openKey, 0, 32) // one allocation for typical documents
	if _, err := scan.object(1); err != nil {
		return err
	}
	d := newDecoder(data[:scan.pos], opts)
	d.scanned = true
	d.strs.Grow(scan.counts.strBytes)
	d.dups = scan.dups
	slices.Sort(d.dups) // found in the order of the entries that repeat them
	return wireDecoderFor(rv.Type().Elem())(d, KindObject, rv.Elem(), 0)
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
// The __debug__ property is skipped everywhere. src must not contain
// itself (values from Decode never do).
func UnmarshalValue(src Value, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errNotPointer
	}
	return unmarshalInto(src, rv.Elem())
}

func unmarshalInto(src Value, rv reflect.Value) error {
	return decoderFor(rv.Type())(src, rv)
}

// decFunc stores src in rv, an addressable value of the type it was built
// for.
type decFunc func(src Value, rv reflect.Value) error

var decCache typeFuncs[decFunc]

// decoderFor returns the cached decFunc of t, building it on first use.
func decoderFor(t reflect.Type) decFunc {
	return decCache.get(t, newDecFunc, func(get func() decFunc) decFunc {
		return func(src Value, rv reflect.Value) error { return get()(src, rv) }
	})
}

func newDecFunc(t reflect.Type) decFunc {
	switch {
	case t == valueType:
		return func(src Value, rv reflect.Value) error {
			*rv.Addr().Interface().(*Value) = src
			return nil
		}
	case t == objectType:
		return func(src Value, rv reflect.Value) error {
			if src.kind != KindObject {
				return mismatch(src, t)
			}
			*rv.Addr().Interface().(*Object) = *src.ref
			return nil
		}
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType):
		return func(src Value, rv reflect.Value) error {
			return rv.Addr().Interface().(Unmarshaler).UnmarshalSD(src)
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return pointerDecoder(t)
	case reflect.Interface:
		return func(src Value, rv reflect.Value) error {
			if src.kind == KindNull {
				rv.SetZero()
				return nil
			}
			if t.NumMethod() != 0 {
				return mismatch(src, t)
			}
			rv.Set(reflect.ValueOf(toAny(src)))
			return nil
		}
	case reflect.Bool:
		return func(src Value, rv reflect.Value) error {
			b, ok := src.AsBool()
			if !ok {
				return mismatchOrNull(src, t)
			}
			rv.SetBool(b)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(src Value, rv reflect.Value) error {
			i, ok := src.AsInt()
			switch {
			case !ok && src.kind.isUnsigned():
				return overflow(src, t)
			case !ok:
				return mismatchOrNull(src, t)
			case rv.OverflowInt(i):
				return overflow(src, t)
			}
			rv.SetInt(i)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(src Value, rv reflect.Value) error {
			u, ok := src.AsUint()
			switch {
			case !ok && src.kind.isSigned():
				return overflow(src, t)
			case !ok:
				return mismatchOrNull(src, t)
			case rv.OverflowUint(u):
				return overflow(src, t)
			}
			rv.SetUint(u)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(src Value, rv reflect.Value) error {
			f, ok := src.AsFloat()
			switch {
			case ok:
			case src.kind.isUnsigned():
				f = float64(src.num)
			case src.kind.isSigned():
				f = float64(int64(src.num))
			default:
				return mismatchOrNull(src, t)
			}
			if !math.IsInf(f, 0) && !math.IsNaN(f) && rv.OverflowFloat(f) {
				return overflow(src, t)
			}
			rv.SetFloat(f)
			return nil
		}
	case reflect.String:
		return func(src Value, rv reflect.Value) error {
			s, ok := src.AsString()
			if !ok {
				return mismatchOrNull(src, t)
			}
			rv.SetString(s)
			return nil
		}
	case reflect.Slice:
		return sliceDecoder(t)
	case reflect.Array:
		return arrayDecoder(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return mapDecoder(t)
		}
	case reflect.Struct:
		return structDecoder(t)
	}
	return func(src Value, rv reflect.Value) error { return mismatchOrNull(src, t) }
}

// mismatchOrNull is the error for src in a value of type t that cannot
// hold it: none for Null, which leaves such values unchanged.
func mismatchOrNull(src Value, t reflect.Type) error {
	if src.kind == KindNull {
		return nil
	}
	return mismatch(src, t)
}

func pointerDecoder(t reflect.Type) decFunc {
	elem := decoderFor(t.Elem())
	return func(src Value, rv reflect.Value) error {
		if src.kind == KindNull {
			rv.SetZero()
			return nil
		}
		if rv.IsNil() {
			rv.Set(reflect.New(t.Elem()))
		}
		return elem(src, rv.Elem())
	}
}

func sliceDecoder(t reflect.Type) decFunc {
	elem := decoderFor(t.Elem())
	return func(src Value, rv reflect.Value) error {
		if src.kind == KindNull {
			rv.SetZero()
			return nil
		}
		if src.kind != KindArray {
			return mismatch(src, t)
		}
		elems := src.ref.vals
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i := range elems {
			if err := elem(elems[i], s.Index(i)); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		rv.Set(s)
		return nil
	}
}

func arrayDecoder(t reflect.Type) decFunc {
	elem := decoderFor(t.Elem())
	return func(src Value, rv reflect.Value) error {
		if src.kind != KindArray {
			return mismatchOrNull(src, t)
		}
		elems := src.ref.vals
		for i := 0; i < rv.Len(); i++ {
			if i >= len(elems) {
				rv.Index(i).SetZero()
				continue
			}
			if err := elem(elems[i], rv.Index(i)); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		return nil
	}
}

func mapDecoder(t reflect.Type) decFunc {
	elem := decoderFor(t.Elem())
	return func(src Value, rv reflect.Value) error {
		if src.kind == KindNull {
			rv.SetZero()
			return nil
		}
		if src.kind != KindObject {
			return mismatch(src, t)
		}
		o := src.ref
		if rv.IsNil() {
			rv.Set(reflect.MakeMapWithSize(t, o.Len()))
		}
		for i, h := range o.keys {
			if h == debugHash {
				continue
			}
			key := objectKey(o, i)
			ev := reflect.New(t.Elem()).Elem()
			if err := elem(o.vals[i], ev); err != nil {
				return prefixPath(err, "."+key)
			}
			rv.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), ev)
		}
		return nil
	}
}

func structDecoder(t reflect.Type) decFunc {
	info := cachedStructInfo(t)
	decs := make([]decFunc, len(info.fields))
	for i, f := range info.fields {
		decs[i] = decoderFor(t.FieldByIndex(f.index).Type)
	}
	return func(src Value, rv reflect.Value) error {
		if src.kind != KindObject {
			return mismatchOrNull(src, t)
		}
		o := src.ref
		next := 0 // keys usually come in field order: try that field first
		for i, h := range o.keys {
			j := next
			if j >= len(info.fields) || info.fields[j].hash != h {
				if j = info.indexOf(h); j < 0 || h == debugHash {
					continue // unknown keys and __debug__ are ignored
				}
			}
			next = j + 1
			f := &info.fields[j]
			fv, ok := settableField(rv, f.index)
			if !ok {
				continue
			}
			if err := decs[j](o.vals[i], fv); err != nil {
				return prefixPath(err, "."+f.name)
			}
		}
		return nil
	}
}

// settableField returns the field at index, allocating nil embedded
// pointers on the way; ok is false when one cannot be allocated.
func settableField(rv reflect.Value, index []int) (reflect.Value, bool) {
	if len(index) == 1 {
		return rv.Field(index[0]), true
	}
	for j, x := range index {
		if j > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				if !rv.CanSet() {
					return reflect.Value{}, false // unexported embedded pointer
				}
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, rv.CanSet()
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

// objectKey returns the name of entry i, or "#" and its hash in hex.
func objectKey(o *Object, i int) string {
	if n := o.nameAt(i); n != "" {
		return n
	}
	return "#" + hex16(o.keys[i])
}
