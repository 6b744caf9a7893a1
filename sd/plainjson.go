package sd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// ObjectFromJSON reads a plain JSON object (as people write it, e.g. package
// metadata) into an Object, keeping the order of its keys. JSON has no
// integer widths, so: integers become Int64 (Uint64 above the int64 range),
// other numbers Float64, and strings, booleans, null, arrays and objects
// map to their BPXSD kinds. A repeated key keeps its first position and its
// last value, as in the binary form. Nesting is limited to DefaultMaxDepth.
// For exact widths use the typed form (UnmarshalTypedJSON). Errors are
// *SyntaxError values naming the byte offset, matching ErrSyntax (ErrDepth
// for the nesting limit).
func ObjectFromJSON(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(err error, detail string) error {
		return &SyntaxError{Offset: dec.InputOffset(), Err: err, Detail: "plain JSON: " + detail}
	}
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, fail(ErrSyntax, "no JSON value")
	} else if err != nil {
		return nil, fail(ErrSyntax, err.Error())
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail(ErrSyntax, "the top level must be an object")
	}
	o, err := jsonObject(dec, 1)
	if err == errPlainDepth {
		return nil, fail(ErrDepth, err.Error())
	} else if err != nil {
		return nil, fail(ErrSyntax, err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(ErrSyntax, "data after the top-level object")
	}
	return o, nil
}

// errPlainDepth stops ObjectFromJSON at DefaultMaxDepth.
var errPlainDepth = fmt.Errorf("nesting deeper than %d", DefaultMaxDepth)

// jsonObject reads the members of an object whose '{' was consumed.
func jsonObject(dec *json.Decoder, depth int) (*Object, error) {
	o := NewObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // the decoder guarantees a string key here
		v, err := jsonValue(dec, depth)
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
	}
	_, err := dec.Token() // '}'
	return o, err
}

func jsonValue(dec *json.Decoder, depth int) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return Value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return Null(), nil
	case bool:
		return Bool(t), nil
	case string:
		return String(t), nil
	case json.Number:
		if i, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
			return Int64(i), nil
		}
		if u, err := strconv.ParseUint(t.String(), 10, 64); err == nil {
			return Uint64(u), nil
		}
		f, err := t.Float64()
		if err != nil {
			return Value{}, fmt.Errorf("number %s: %w", t, err)
		}
		return Float64(f), nil
	case json.Delim:
		if depth >= DefaultMaxDepth {
			return Value{}, errPlainDepth
		}
		if t == '{' {
			o, err := jsonObject(dec, depth+1)
			if err != nil {
				return Value{}, err
			}
			return o.Value(), nil
		}
		var vals []Value
		for dec.More() {
			v, err := jsonValue(dec, depth+1)
			if err != nil {
				return Value{}, err
			}
			vals = append(vals, v)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return Value{}, err
		}
		return Array(vals...), nil
	}
	return Value{}, fmt.Errorf("unexpected JSON token %v", tok)
}
