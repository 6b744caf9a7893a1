package sd

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
)

// Marshaler is implemented by types that convert themselves to a Value.
// Marshal uses MarshalSD when the type of the value it meets implements
// it: a method with a pointer receiver is used only for pointers.
type Marshaler interface {
	MarshalSD() (Value, error)
}

// Unmarshaler is implemented by types that set themselves from a Value
// (usually with a pointer receiver). Unmarshal calls UnmarshalSD on the
// address of the target, so a value field of such a type is handled too.
type Unmarshaler interface {
	UnmarshalSD(Value) error
}

// UnsupportedTypeError is returned by Marshal for a Go value that has no
// BPXSD form: channels, functions, complex numbers, uintptr, unsafe
// pointers, and maps whose keys are not strings. It is also returned when
// the root value does not marshal to an Object.
type UnsupportedTypeError struct {
	Type reflect.Type
	Path string // where in the value, such as .Tags[2]
}

// Error returns the message, ending with where the problem is.
func (e *UnsupportedTypeError) Error() string {
	return "sd: unsupported type " + e.Type.String() + pathSuffix(e.Path)
}

func pathSuffix(p string) string {
	if p == "" {
		return " at the root"
	}
	return " at " + p
}

// Marshal returns the BPXSD encoding of v, which must marshal to an
// Object (a struct, a map with string keys, an *Object, or pointers to
// those). See [MarshalValue] for the mapping. With [WithDebugNames],
// objects carry a __debug__ array of their field names.
func Marshal(v any, opts ...EncodeOption) ([]byte, error) {
	cfg, err := newEncodeConfig(opts)
	if err != nil {
		return nil, err
	}
	return cfg.marshal(v)
}

func (opts encodeConfig) marshal(v any) ([]byte, error) {
	return withScratch(func(b []byte) ([]byte, error) { return opts.appendMarshal(b, v) })
}

// MarshalValue converts a Go value to a Value, in the style of
// encoding/json:
//
//   - bool, uint8 to uint64, int8 to int64, float32, float64 and string map
//     to the kind of the same width; int and uint map to Int64 and Uint64;
//   - slices and arrays become Arrays ([]byte too), nil slices Null;
//   - structs and maps with string keys become Objects with named keys:
//     struct fields follow their `sd:"name,omitempty"` tags as in
//     encoding/json (a "-" tag skips a field, embedded structs are
//     flattened), map keys are sorted; the wire keeps only key hashes, so
//     map keys survive encoding only with [WithDebugNames];
//   - nil pointers, interfaces and maps become Null; others are followed;
//   - Value, Object and Marshaler values give themselves.
//
// Nesting deeper than DefaultMaxDepth, which also catches cyclic values,
// fails with ErrDepth.
func MarshalValue(v any) (Value, error) {
	if v == nil {
		return Value{}, nil
	}
	return marshalValue(reflect.ValueOf(v), 1)
}

var (
	valueType       = reflect.TypeFor[Value]()
	objectType      = reflect.TypeFor[Object]()
	marshalerType   = reflect.TypeFor[Marshaler]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
)

// encFunc converts rv, a value of the type it was built for; depth is the
// depth an Object or Array made from rv would have.
type encFunc func(rv reflect.Value, depth int) (Value, error)

var encCache typeFuncs[encFunc]

// encoderFor returns the cached encFunc of t, building it on first use.
func encoderFor(t reflect.Type) encFunc {
	return encCache.get(t, newEncFunc, func(get func() encFunc) encFunc {
		return func(rv reflect.Value, depth int) (Value, error) { return get()(rv, depth) }
	})
}

func marshalValue(rv reflect.Value, depth int) (Value, error) {
	return encoderFor(rv.Type())(rv, depth)
}

// maxMarshalDepth stops cyclic values; Encode then applies its own limit.
const maxMarshalDepth = DefaultMaxDepth + 1

func newEncFunc(t reflect.Type) encFunc {
	switch {
	case t == valueType:
		return func(rv reflect.Value, _ int) (Value, error) { return rv.Interface().(Value), nil }
	case t == objectType:
		return func(rv reflect.Value, _ int) (Value, error) {
			o := rv.Interface().(Object)
			return o.Value(), nil
		}
	case t.Implements(marshalerType):
		return func(rv reflect.Value, _ int) (Value, error) {
			if t.Kind() == reflect.Pointer && rv.IsNil() {
				return Value{}, nil
			}
			return rv.Interface().(Marshaler).MarshalSD()
		}
	}
	if k, ok := scalarKinds[t.Kind()]; ok {
		return func(rv reflect.Value, _ int) (Value, error) { return scalarValue(k, rv), nil }
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := encoderFor(t.Elem())
		return func(rv reflect.Value, depth int) (Value, error) {
			if rv.IsNil() {
				return Value{}, nil
			}
			return elem(rv.Elem(), depth)
		}
	case reflect.Interface:
		return func(rv reflect.Value, depth int) (Value, error) {
			if rv.IsNil() {
				return Value{}, nil
			}
			return marshalValue(rv.Elem(), depth)
		}
	case reflect.Slice, reflect.Array:
		return sequenceEncoder(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return mapEncoder(t)
		}
	case reflect.Struct:
		return structEncoder(t)
	}
	return func(reflect.Value, int) (Value, error) { return Value{}, &UnsupportedTypeError{Type: t} }
}

// scalarKinds maps the Go kinds with a fixed BPXSD kind.
var scalarKinds = map[reflect.Kind]Kind{
	reflect.Bool:  KindBool,
	reflect.Uint8: KindUint8, reflect.Uint16: KindUint16, reflect.Uint32: KindUint32,
	reflect.Uint64: KindUint64, reflect.Uint: KindUint64,
	reflect.Int8: KindInt8, reflect.Int16: KindInt16, reflect.Int32: KindInt32,
	reflect.Int64: KindInt64, reflect.Int: KindInt64,
	reflect.Float32: KindFloat32, reflect.Float64: KindFloat64,
	reflect.String: KindString,
}

// scalarValue converts rv, of a Go kind listed in scalarKinds, to the
// Value of kind k.
func scalarValue(k Kind, rv reflect.Value) Value {
	switch k {
	case KindBool:
		return Bool(rv.Bool())
	case KindFloat32:
		return Float32(float32(rv.Float()))
	case KindFloat64:
		return Float64(rv.Float())
	case KindString:
		return String(rv.String())
	}
	if k.isSigned() {
		return Value{kind: k, num: uint64(rv.Int())}
	}
	return Value{kind: k, num: rv.Uint()}
}

func sequenceEncoder(t reflect.Type) encFunc {
	elem := encoderFor(t.Elem())
	return func(rv reflect.Value, depth int) (Value, error) {
		if t.Kind() == reflect.Slice && rv.IsNil() {
			return Value{}, nil
		}
		if depth > maxMarshalDepth {
			return Value{}, &EncodeError{Err: ErrDepth}
		}
		vals := make([]Value, rv.Len())
		for i := range vals {
			v, err := elem(rv.Index(i), depth+1)
			if err != nil {
				return Value{}, prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
			vals[i] = v
		}
		return Array(vals...), nil
	}
}

func mapEncoder(t reflect.Type) encFunc {
	elem := encoderFor(t.Elem())
	return func(rv reflect.Value, depth int) (Value, error) {
		if rv.IsNil() {
			return Value{}, nil
		}
		if depth > maxMarshalDepth {
			return Value{}, &EncodeError{Err: ErrDepth}
		}
		keys := sortedMapKeys(rv)
		o := &Object{}
		for _, k := range keys {
			v, err := elem(rv.MapIndex(k), depth+1)
			if err != nil {
				return Value{}, prefixPath(err, "."+k.String())
			}
			o.Set(k.String(), v)
		}
		return o.Value(), nil
	}
}

// sortedMapKeys returns the keys of a map with string keys, sorted, so
// that output is reproducible.
func sortedMapKeys(rv reflect.Value) []reflect.Value {
	keys := rv.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
	return keys
}

func structEncoder(t reflect.Type) encFunc {
	info := cachedStructInfo(t)
	encs := make([]encFunc, len(info.fields))
	for i, f := range info.fields {
		encs[i] = encoderFor(t.FieldByIndex(f.index).Type)
	}
	n := len(info.fields)
	return func(rv reflect.Value, depth int) (Value, error) {
		if depth > maxMarshalDepth {
			return Value{}, &EncodeError{Err: ErrDepth}
		}
		o := &Object{keys: make([]uint64, 0, n), vals: make([]Value, 0, n), names: make([]string, 0, n)}
		for i := range info.fields {
			f := &info.fields[i]
			fv, ok := fieldByIndex(rv, f.index)
			if !ok || (f.omitEmpty && isEmptyValue(fv)) {
				continue
			}
			v, err := encs[i](fv, depth+1)
			if err != nil {
				return Value{}, prefixPath(err, "."+f.name)
			}
			o.keys = append(o.keys, f.hash)
			o.vals = append(o.vals, v)
			o.names = append(o.names, f.name)
		}
		return o.Value(), nil
	}
}

// fieldByIndex follows index through embedded structs; ok is false when
// it meets a nil embedded pointer.
func fieldByIndex(rv reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return reflect.Value{}, false
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, true
}

// prefixPath adds a path segment in front of the path of a marshalling
// error.
func prefixPath(err error, seg string) error {
	switch e := err.(type) {
	case *UnsupportedTypeError:
		e.Path = seg + e.Path
	case *EncodeError:
		e.Path = seg + e.Path
	case *UnmarshalTypeError:
		e.Path = seg + e.Path
	}
	return err
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
