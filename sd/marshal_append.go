package sd

import (
	"encoding/binary"
	"reflect"
	"strconv"
)

// Marshal straight to bytes. It follows the mapping of MarshalValue (and
// produces the same bytes as encoding its result) without building the
// Value tree: structs, maps, slices, pointers and interfaces are walked
// here, every other type goes through its encFunc and the wire encoder.

// AppendMarshal appends the BPXSD encoding of v (see [Marshal]) to dst.
// On error dst is returned unchanged.
func AppendMarshal(dst []byte, v any, opts ...EncodeOption) ([]byte, error) {
	cfg, err := newEncodeConfig(opts)
	if err != nil {
		return dst, err
	}
	return cfg.appendMarshal(dst, v)
}

func (opts encodeConfig) appendMarshal(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst, opts: opts, maxDepth: opts.MaxDepth}
	if e.maxDepth <= 0 {
		e.maxDepth = DefaultMaxDepth
	}
	if v == nil {
		return dst, &UnsupportedTypeError{Type: reflect.TypeOf(v)}
	}
	rv := reflect.ValueOf(v)
	start := len(dst)
	if err := appenderFor(rv.Type())(&e, rv, 0); err != nil {
		return dst, err
	}
	// The root is an object written without its type code.
	if e.buf[start] != byte(KindObject) {
		return dst, &UnsupportedTypeError{Type: rv.Type()}
	}
	copy(e.buf[start:], e.buf[start+1:])
	return e.buf[:len(e.buf)-1], nil
}

// appendFunc appends the type code and value of rv; depth is that of the
// container holding it (0 for the root).
type appendFunc func(e *encoder, rv reflect.Value, depth int) error

var appendCache typeFuncs[appendFunc]

func appenderFor(t reflect.Type) appendFunc {
	return appendCache.get(t, newAppendFunc, func(get func() appendFunc) appendFunc {
		return func(e *encoder, rv reflect.Value, depth int) error { return get()(e, rv, depth) }
	})
}

func newAppendFunc(t reflect.Type) appendFunc {
	if t != valueType && t != objectType && !t.Implements(marshalerType) {
		if k, ok := scalarKinds[t.Kind()]; ok {
			return func(e *encoder, rv reflect.Value, depth int) error {
				if err := e.value(scalarValue(k, rv), depth); err != nil {
					return err
				}
				return nil
			}
		}
		switch t.Kind() {
		case reflect.Struct:
			return structAppender(t)
		case reflect.Slice, reflect.Array:
			return sequenceAppender(t)
		case reflect.Map:
			if t.Key().Kind() == reflect.String {
				return mapAppender(t)
			}
		case reflect.Pointer:
			elem := appenderFor(t.Elem())
			return func(e *encoder, rv reflect.Value, depth int) error {
				if rv.IsNil() {
					e.buf = append(e.buf, byte(KindNull))
					return nil
				}
				return elem(e, rv.Elem(), depth)
			}
		case reflect.Interface:
			return func(e *encoder, rv reflect.Value, depth int) error {
				if rv.IsNil() {
					e.buf = append(e.buf, byte(KindNull))
					return nil
				}
				return appenderFor(rv.Elem().Type())(e, rv.Elem(), depth)
			}
		}
	}
	// Value, Object, Marshaler and unsupported types.
	enc := encoderFor(t)
	return func(e *encoder, rv reflect.Value, depth int) error {
		v, err := enc(rv, depth+1)
		if err != nil {
			return err
		}
		if err := e.value(v, depth); err != nil {
			return err
		}
		return nil
	}
}

// openContainer writes the type code and a placeholder count, and returns
// the position of the count.
func (e *encoder) openContainer(k Kind, depth int) (int, error) {
	if depth+1 > e.maxDepth {
		return 0, &EncodeError{Err: ErrDepth}
	}
	e.buf = append(e.buf, byte(k), 0)
	return len(e.buf) - 1, nil
}

// closeContainer stores count at pos.
func (e *encoder) closeContainer(pos, count int) error {
	if count > MaxEntries {
		return &EncodeError{Err: ErrCapacity}
	}
	e.buf[pos] = byte(count)
	return nil
}

// closeObject ends an object of count entries opened at pos (depth is
// its own), first writing a __debug__ entry listing names if any.
func (e *encoder) closeObject(pos, count int, names []string, depth int) error {
	if len(names) > 0 {
		vals := make([]Value, len(names))
		for i, n := range names {
			vals[i] = String(n)
		}
		e.buf = binary.LittleEndian.AppendUint64(e.buf, debugHash)
		if err := e.value(Array(vals...), depth); err != nil {
			return within("."+DebugKey, err)
		}
		count++
	}
	return e.closeContainer(pos, count)
}

func structAppender(t reflect.Type) appendFunc {
	info := cachedStructInfo(t)
	apps := make([]appendFunc, len(info.fields))
	for i, f := range info.fields {
		apps[i] = appenderFor(t.FieldByIndex(f.index).Type)
	}
	return func(e *encoder, rv reflect.Value, depth int) error {
		pos, err := e.openContainer(KindObject, depth)
		if err != nil {
			return err
		}
		var names []string
		count := 0
		for i := range info.fields {
			f := &info.fields[i]
			fv, ok := fieldByIndex(rv, f.index)
			if !ok || (f.omitEmpty && isEmptyValue(fv)) {
				continue
			}
			e.buf = binary.LittleEndian.AppendUint64(e.buf, f.hash)
			if err := apps[i](e, fv, depth+1); err != nil {
				return prefixPath(err, "."+f.name)
			}
			count++
			if e.opts.DebugNames {
				names = append(names, f.name)
			}
		}
		return e.closeObject(pos, count, names, depth+1)
	}
}

func mapAppender(t reflect.Type) appendFunc {
	elem := appenderFor(t.Elem())
	return func(e *encoder, rv reflect.Value, depth int) error {
		if rv.IsNil() {
			e.buf = append(e.buf, byte(KindNull))
			return nil
		}
		pos, err := e.openContainer(KindObject, depth)
		if err != nil {
			return err
		}
		keys := sortedMapKeys(rv)
		var names []string
		for _, k := range keys {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, Hash(k.String()))
			if err := elem(e, rv.MapIndex(k), depth+1); err != nil {
				return prefixPath(err, "."+k.String())
			}
			if e.opts.DebugNames {
				names = append(names, k.String())
			}
		}
		return e.closeObject(pos, len(keys), names, depth+1)
	}
}

func sequenceAppender(t reflect.Type) appendFunc {
	elem := appenderFor(t.Elem())
	return func(e *encoder, rv reflect.Value, depth int) error {
		if t.Kind() == reflect.Slice && rv.IsNil() {
			e.buf = append(e.buf, byte(KindNull))
			return nil
		}
		pos, err := e.openContainer(KindArray, depth)
		if err != nil {
			return err
		}
		n := rv.Len()
		if n > MaxEntries {
			return &EncodeError{Err: ErrCapacity}
		}
		for i := 0; i < n; i++ {
			if err := elem(e, rv.Index(i), depth+1); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		return e.closeContainer(pos, n)
	}
}
