package sd

import (
	"reflect"
	"strconv"
)

// Unmarshal straight from the wire. Unmarshal first validates the data
// (decodeConfig.scan), so that a malformed document always gives a
// *SyntaxError whatever the target; then it walks the bytes again into the
// Go value. Structs, slices, arrays and pointers are walked here; every
// other target (scalars, maps, interfaces, Value, Object, Unmarshaler)
// decodes its value with the decoder and converts it with its decFunc, so
// the conversion rules live in one place.

// wireFunc stores the value of type code k (just read) in rv; depth is that
// of the container holding the value.
type wireFunc func(d *decoder, k Kind, rv reflect.Value, depth int) error

var wireCache typeFuncs[wireFunc]

func wireDecoderFor(t reflect.Type) wireFunc {
	return wireCache.get(t, newWireFunc, func(get func() wireFunc) wireFunc {
		return func(d *decoder, k Kind, rv reflect.Value, depth int) error { return get()(d, k, rv, depth) }
	})
}

func newWireFunc(t reflect.Type) wireFunc {
	custom := t == valueType || t == objectType ||
		(t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType))
	if !custom {
		switch t.Kind() {
		case reflect.Struct:
			return structWire(t)
		case reflect.Slice, reflect.Array:
			return sequenceWire(t)
		case reflect.Pointer:
			elem := wireDecoderFor(t.Elem())
			return func(d *decoder, k Kind, rv reflect.Value, depth int) error {
				if k == KindNull {
					rv.SetZero()
					return nil
				}
				if rv.IsNil() {
					rv.Set(reflect.New(t.Elem()))
				}
				return elem(d, k, rv.Elem(), depth)
			}
		}
	}
	return viaValue(decoderFor(t))
}

// viaValue decodes the value with the decoder, then converts it with dec.
func viaValue(dec decFunc) wireFunc {
	return func(d *decoder, k Kind, rv reflect.Value, depth int) error {
		var v Value
		if err := d.valueOf(k, depth, &v); err != nil {
			return err
		}
		return dec(v, rv)
	}
}

func structWire(t reflect.Type) wireFunc {
	info := cachedStructInfo(t)
	fields := make([]wireFunc, len(info.fields))
	for i, f := range info.fields {
		fields[i] = wireDecoderFor(t.FieldByIndex(f.index).Type)
	}
	fallback := viaValue(decoderFor(t)) // Null and kind mismatches
	return func(d *decoder, k Kind, rv reflect.Value, depth int) error {
		if k != KindObject {
			return fallback(d, k, rv, depth)
		}
		n, err := d.count(depth+1, "object")
		if err != nil {
			return err
		}
		next := 0 // keys usually come in field order: try that field first
		for range n {
			off := d.pos
			h, err := d.entryHash()
			if err != nil {
				return err
			}
			code := Kind(d.data[d.pos]) // entryHash made sure it is there
			d.pos++
			j := next
			if j >= len(info.fields) || info.fields[j].hash != h {
				j = info.indexOf(h)
			}
			var fv reflect.Value
			if j >= 0 && h != debugHash && !d.superseded(off) {
				next = j + 1
				fv, _ = settableField(rv, info.fields[j].index)
			}
			if !fv.IsValid() || !fv.CanSet() {
				// Unknown key, or one that a later entry repeats (the
				// last value wins): read past its value.
				if err := d.valueOf(code, depth+1, &d.scratch); err != nil {
					return err
				}
				continue
			}
			if err := fields[j](d, code, fv, depth+1); err != nil {
				return prefixPath(err, "."+info.fields[j].name)
			}
		}
		return nil
	}
}

func sequenceWire(t reflect.Type) wireFunc {
	elem := wireDecoderFor(t.Elem())
	fallback := viaValue(decoderFor(t))
	return func(d *decoder, k Kind, rv reflect.Value, depth int) error {
		if k != KindArray {
			return fallback(d, k, rv, depth)
		}
		n, err := d.count(depth+1, "array")
		if err != nil {
			return err
		}
		// The data was validated, so n elements follow: each takes at
		// least one byte.
		target := rv
		if t.Kind() == reflect.Slice {
			target = reflect.MakeSlice(t, n, n)
		}
		for i := range n {
			code, err := d.typeCode()
			if err != nil {
				return err
			}
			if i >= target.Len() { // a Go array shorter than the data
				if err := d.valueOf(code, depth+1, &d.scratch); err != nil {
					return err
				}
				continue
			}
			if err := elem(d, code, target.Index(i), depth+1); err != nil {
				return prefixPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		if t.Kind() == reflect.Slice {
			rv.Set(target)
		} else {
			for i := n; i < rv.Len(); i++ {
				rv.Index(i).SetZero()
			}
		}
		return nil
	}
}
