package table

import (
	"fmt"
	"math"
	"reflect"
	"sync"
)

// Unmarshal stores the row's values in the struct v points to. A column
// goes to the exported field tagged `table:"name"` with its name, or else
// to the exported field of that name; `table:"-"` skips a field. Columns
// with no field, and Null columns, are skipped; fields with no column are
// left as they are.
//
// A field takes a value it holds exactly: any integer type an integer
// that fits, a float32 or float64 a float (a float32 field a Float64 value
// only if it does not overflow), a bool a Bool, a string a Varchar, a
// slice or an array of the same length an array, and an interface{} field
// the value [Row.ValueAt] returns. Anything else is an [ErrType] or
// [ErrRange] error naming the column.
func (r Row) Unmarshal(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: Unmarshal wants a non-nil pointer to a struct, got %T", ErrType, v)
	}
	sv := rv.Elem()
	fields := fieldIndex(sv.Type())
	for i, c := range r.t.Columns {
		fi, ok := fields[c.Name]
		if !ok || c.Type == Null {
			continue
		}
		if err := assign(sv.Field(fi), r.ValueAt(i)); err != nil {
			return fmt.Errorf("column %q into field %s: %w", c.Name, sv.Type().Field(fi).Name, err)
		}
	}
	return nil
}

// fieldCache holds the fieldIndex of each struct type Unmarshal has seen.
var fieldCache sync.Map // reflect.Type → map[string]int

// fieldIndex maps column names to the indexes of the fields of struct
// type t that receive them.
func fieldIndex(t reflect.Type) map[string]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("table"); ok {
			if tag == "-" {
				continue
			}
			if tag != "" {
				name = tag
			}
		}
		if _, dup := m[name]; !dup {
			m[name] = i
		}
	}
	fieldCache.Store(t, m)
	return m
}

// assign stores the decoded value v in the field f.
func assign(f reflect.Value, v any) error {
	if f.Kind() == reflect.Interface && f.NumMethod() == 0 {
		f.Set(reflect.ValueOf(v))
		return nil
	}
	switch x := v.(type) {
	case bool:
		if f.Kind() == reflect.Bool {
			f.SetBool(x)
			return nil
		}
	case string:
		if f.Kind() == reflect.String {
			f.SetString(x)
			return nil
		}
	case float32:
		return assignFloat(f, float64(x))
	case float64:
		return assignFloat(f, x)
	default:
		if mag, neg, ok := intParts(v); ok {
			return assignInt(f, mag, neg)
		}
		return assignArray(f, reflect.ValueOf(v))
	}
	return fmt.Errorf("%w: %T into %s", ErrType, v, f.Type())
}

func assignFloat(f reflect.Value, x float64) error {
	switch f.Kind() {
	case reflect.Float32, reflect.Float64:
		if f.OverflowFloat(x) && !math.IsInf(x, 0) {
			return fmt.Errorf("%w: %g into %s", ErrRange, x, f.Type())
		}
		f.SetFloat(x)
		return nil
	}
	return fmt.Errorf("%w: float into %s", ErrType, f.Type())
}

func assignInt(f reflect.Value, mag uint64, neg bool) error {
	switch f.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var x int64
		switch {
		case neg && mag <= 1<<63:
			x = int64(-mag)
		case !neg && mag <= math.MaxInt64:
			x = int64(mag)
		default:
			return rangeError(f, mag, neg)
		}
		if f.OverflowInt(x) {
			return rangeError(f, mag, neg)
		}
		f.SetInt(x)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if neg && mag != 0 || f.OverflowUint(mag) {
			return rangeError(f, mag, neg)
		}
		f.SetUint(mag)
		return nil
	}
	return fmt.Errorf("%w: integer into %s", ErrType, f.Type())
}

func rangeError(f reflect.Value, mag uint64, neg bool) error {
	sign := ""
	if neg {
		sign = "-"
	}
	return fmt.Errorf("%w: %s%d into %s", ErrRange, sign, mag, f.Type())
}

func assignArray(f reflect.Value, src reflect.Value) error {
	n := src.Len()
	switch f.Kind() {
	case reflect.Slice:
		f.Set(reflect.MakeSlice(f.Type(), n, n))
	case reflect.Array:
		if f.Len() != n {
			return fmt.Errorf("%w: %d elements into %s", ErrType, n, f.Type())
		}
	default:
		return fmt.Errorf("%w: %s into %s", ErrType, src.Type(), f.Type())
	}
	for j := range n {
		if err := assign(f.Index(j), src.Index(j).Interface()); err != nil {
			return fmt.Errorf("element %d: %w", j, err)
		}
	}
	return nil
}
