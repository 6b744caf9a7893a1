package blk

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx/internal/jsonstr"
)

// TypedJSONFormat is the value of the "format" member of a typed JSON
// document.
const TypedJSONFormat = "blk-typed-json/1"

// WriteTypedJSON writes b as typed JSON, a lossless form that keeps every
// type, the order and the duplicates, so ParseTypedJSON gives back an
// equal tree. A block is {"name", "params", "blocks"} (the root adds
// "format"); a param is {"name", "type", "value"} with type the text
// suffix (t, i, r, p2, p3, p4, ip2, ip3, ip4, b, c, m, i64). Values:
//   - t: a string; a string that is not valid UTF-8 is given as
//     "value_b64" (standard base64) instead, and a name as "name_b64";
//   - i, i64: integers; b: true or false;
//   - r: a number; p2/p3/p4: arrays of numbers; m: 4 arrays of 3;
//     numbers are the shortest text that reads back to the same float32;
//     non-finite values are the strings "inf", "-inf", "nan" (the quiet
//     NaN 0x7fc00000) or "nan:0x7fc00001" with the bits of another NaN;
//   - ip2/ip3/ip4: arrays of integers;
//   - c: [r, g, b, a].
func WriteTypedJSON(w io.Writer, b *Block) error {
	var t typedWriter
	t.block(b, 0, true)
	t.buf = append(t.buf, '\n')
	_, err := w.Write(t.buf)
	return err
}

type typedWriter struct{ buf []byte }

func (t *typedWriter) nl(level int) {
	t.buf = append(t.buf, '\n')
	for i := 0; i < level; i++ {
		t.buf = append(t.buf, ' ', ' ')
	}
}

// str writes "key": s, or "key_b64": base64 for invalid UTF-8.
func (t *typedWriter) str(key, s string) {
	if utf8.ValidString(s) {
		t.buf = append(t.buf, '"')
		t.buf = append(t.buf, key...)
		t.buf = append(t.buf, `": `...)
		t.buf = jsonstr.Append(t.buf, s, jsonstr.Serde)
		return
	}
	t.buf = append(t.buf, '"')
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, `_b64": "`...)
	t.buf = base64.StdEncoding.AppendEncode(t.buf, []byte(s))
	t.buf = append(t.buf, '"')
}

func (t *typedWriter) block(b *Block, level int, root bool) {
	t.buf = append(t.buf, '{')
	if root {
		t.nl(level + 1)
		t.buf = append(t.buf, `"format": "`+TypedJSONFormat+`",`...)
	}
	t.nl(level + 1)
	t.str("name", b.Name)
	t.buf = append(t.buf, ',')
	t.nl(level + 1)
	t.buf = append(t.buf, `"params": [`...)
	for i, p := range b.Params {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		t.nl(level + 2)
		t.buf = append(t.buf, '{')
		t.str("name", p.Name)
		t.buf = append(t.buf, `, "type": "`...)
		t.buf = append(t.buf, p.Value.typ.Suffix()...)
		t.buf = append(t.buf, `", `...)
		if p.Value.typ == TypeString {
			t.str("value", p.Value.s)
		} else {
			t.buf = append(t.buf, `"value": `...)
			t.buf = appendTypedValue(t.buf, p.Value)
		}
		t.buf = append(t.buf, '}')
	}
	if len(b.Params) > 0 {
		t.nl(level + 1)
	}
	t.buf = append(t.buf, "],"...)
	t.nl(level + 1)
	t.buf = append(t.buf, `"blocks": [`...)
	for i, c := range b.Blocks {
		if i > 0 {
			t.buf = append(t.buf, ',')
		}
		t.nl(level + 2)
		t.block(c, level+2, false)
	}
	if len(b.Blocks) > 0 {
		t.nl(level + 1)
	}
	t.buf = append(t.buf, ']')
	t.nl(level)
	t.buf = append(t.buf, '}')
}

const quietNaN = 0x7fc00000

func appendTypedFloat(dst []byte, bits uint32) []byte {
	f := math.Float32frombits(bits)
	switch {
	case f != f && bits == quietNaN:
		return append(dst, `"nan"`...)
	case f != f:
		return fmt.Appendf(dst, `"nan:0x%08x"`, bits)
	case math.IsInf(float64(f), 1):
		return append(dst, `"inf"`...)
	case math.IsInf(float64(f), -1):
		return append(dst, `"-inf"`...)
	}
	return strconv.AppendFloat(dst, float64(f), 'g', -1, 32)
}

func appendTypedValue(dst []byte, v Value) []byte {
	switch v.typ {
	case TypeBool:
		return strconv.AppendBool(dst, v.Bool())
	case TypeInt:
		return strconv.AppendInt(dst, int64(v.Int()), 10)
	case TypeInt64:
		return strconv.AppendInt(dst, v.Int64(), 10)
	case TypeReal:
		return appendTypedFloat(dst, v.w[0])
	case TypeColor:
		c := v.Color()
		return fmt.Appendf(dst, "[%d, %d, %d, %d]", c.R, c.G, c.B, c.A)
	case TypeMatrix:
		w, _ := v.raw()
		dst = append(dst, '[')
		for row := 0; row < 4; row++ {
			if row > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, '[')
			for i := 0; i < 3; i++ {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = appendTypedFloat(dst, w[row*3+i])
			}
			dst = append(dst, ']')
		}
		return append(dst, ']')
	}
	dst = append(dst, '[')
	w, n := v.raw()
	for i, x := range w[:n] {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		if v.typ == TypePoint2 || v.typ == TypePoint3 || v.typ == TypePoint4 {
			dst = appendTypedFloat(dst, x)
		} else {
			dst = strconv.AppendInt(dst, int64(int32(x)), 10)
		}
	}
	return append(dst, ']')
}

type typedBlock struct {
	Format  string        `json:"format,omitempty"`
	Name    *string       `json:"name"`
	NameB64 *string       `json:"name_b64"`
	Params  []typedParam  `json:"params"`
	Blocks  []*typedBlock `json:"blocks"`
}

type typedParam struct {
	Name     *string         `json:"name"`
	NameB64  *string         `json:"name_b64"`
	Type     string          `json:"type"`
	Value    json.RawMessage `json:"value"`
	ValueB64 *string         `json:"value_b64"`
}

// typedError reports a bad typed JSON document at a path of the tree.
func typedError(path, format string, args ...any) error {
	return fmt.Errorf("%w: typed JSON %s: %s", ErrFormat, path, fmt.Sprintf(format, args...))
}

// ParseTypedJSON parses a document written by WriteTypedJSON. Unknown
// members, missing members and values that do not fit their type are
// errors that name the path of the offending entry.
func ParseTypedJSON(data []byte) (*Block, error) {
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err == nil && probe.Format != TypedJSONFormat {
		return nil, typedError("/", "format is %q, not %q: plain BLK JSON cannot be converted back, it has lost the types and merged duplicates", probe.Format, TypedJSONFormat)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var tb typedBlock
	if err := dec.Decode(&tb); err != nil {
		return nil, fmt.Errorf("%w: typed JSON: %v", ErrFormat, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: typed JSON: data after the document", ErrFormat)
	}
	if tb.Format != TypedJSONFormat {
		return nil, typedError("/", "format is %q, want %q", tb.Format, TypedJSONFormat)
	}
	return convertTyped(&tb, "/", 0)
}

func typedString(s, b64 *string, path, what string) (string, error) {
	switch {
	case s != nil && b64 == nil:
		return *s, nil
	case b64 != nil && s == nil:
		raw, err := base64.StdEncoding.DecodeString(*b64)
		if err != nil {
			return "", typedError(path, "bad %s_b64: %v", what, err)
		}
		return string(raw), nil
	}
	return "", typedError(path, "needs exactly one of %s and %s_b64", what, what)
}

func convertTyped(tb *typedBlock, path string, depth int) (*Block, error) {
	if depth > MaxDepth {
		return nil, typedError(path, "blocks nested deeper than %d", MaxDepth)
	}
	if tb == nil {
		return nil, typedError(path, "null block")
	}
	name, err := typedString(tb.Name, tb.NameB64, path, "name")
	if err != nil {
		return nil, err
	}
	b := &Block{Name: name}
	if len(tb.Params) > 0 {
		b.Params = make([]Param, len(tb.Params))
	}
	for i := range tb.Params {
		tp := &tb.Params[i]
		ppath := fmt.Sprintf("%sparams[%d]", path, i)
		if b.Params[i].Name, err = typedString(tp.Name, tp.NameB64, ppath, "name"); err != nil {
			return nil, err
		}
		if b.Params[i].Value, err = typedValue(tp, ppath); err != nil {
			return nil, err
		}
	}
	if len(tb.Blocks) > 0 {
		b.Blocks = make([]*Block, len(tb.Blocks))
	}
	for i, c := range tb.Blocks {
		cb, err := convertTyped(c, fmt.Sprintf("%sblocks[%d]/", path, i), depth+1)
		if err != nil {
			return nil, err
		}
		b.Blocks[i] = cb
	}
	return b, nil
}

func typedValue(tp *typedParam, path string) (Value, error) {
	t, ok := TypeFromSuffix(tp.Type)
	if !ok {
		return Value{}, typedError(path, "unknown type %q", tp.Type)
	}
	if t == TypeString {
		var s *string
		if tp.Value != nil {
			if err := json.Unmarshal(tp.Value, &s); err != nil || s == nil {
				return Value{}, typedError(path, "value of type t is not a string")
			}
		}
		str, err := typedString(s, tp.ValueB64, path, "value")
		return Str(str), err
	}
	if tp.ValueB64 != nil || tp.Value == nil {
		return Value{}, typedError(path, "type %s needs a value", tp.Type)
	}
	bad := func(err any) (Value, error) {
		return Value{}, typedError(path, "bad %s value %s: %v", tp.Type, tp.Value, err)
	}
	switch t {
	case TypeBool:
		var b bool
		if err := json.Unmarshal(tp.Value, &b); err != nil {
			return bad(err)
		}
		return Bool(b), nil
	case TypeInt:
		var n int32
		if err := json.Unmarshal(tp.Value, &n); err != nil {
			return bad(err)
		}
		return Int(n), nil
	case TypeInt64:
		var n int64
		if err := json.Unmarshal(tp.Value, &n); err != nil {
			return bad(err)
		}
		return Int64(n), nil
	case TypeColor:
		var c [4]uint8
		if err := unmarshalExact(tp.Value, &c, 4); err != nil {
			return bad(err)
		}
		return ColorValue(Color{R: c[0], G: c[1], B: c[2], A: c[3]}), nil
	case TypeReal:
		w, err := typedFloat(tp.Value)
		if err != nil {
			return bad(err)
		}
		return Value{typ: t, w: [4]uint32{w}}, nil
	case TypeMatrix:
		var rows []json.RawMessage
		if err := unmarshalExact(tp.Value, &rows, 4); err != nil {
			return bad(err)
		}
		var m [12]uint32
		for r, row := range rows {
			var cells []json.RawMessage
			if err := unmarshalExact(row, &cells, 3); err != nil {
				return bad(err)
			}
			for i, c := range cells {
				w, err := typedFloat(c)
				if err != nil {
					return bad(err)
				}
				m[r*3+i] = w
			}
		}
		return makeValue(t, &m), nil
	case TypePoint2, TypePoint3, TypePoint4:
		var cells []json.RawMessage
		if err := unmarshalExact(tp.Value, &cells, typeInfo[t].words); err != nil {
			return bad(err)
		}
		v := Value{typ: t}
		for i, c := range cells {
			w, err := typedFloat(c)
			if err != nil {
				return bad(err)
			}
			v.w[i] = w
		}
		return v, nil
	default: // ipoint2/3/4
		var n []int32
		if err := unmarshalExact(tp.Value, &n, typeInfo[t].words); err != nil {
			return bad(err)
		}
		return intsValue(t, n...), nil
	}
}

// unmarshalExact decodes an array of exactly n elements.
func unmarshalExact[T any](raw json.RawMessage, dst *T, n int) error {
	var probe []json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return err
	}
	if len(probe) != n {
		return fmt.Errorf("%d elements, want %d", len(probe), n)
	}
	return json.Unmarshal(raw, dst)
}

// typedFloat reads a float32 written by appendTypedFloat.
func typedFloat(raw json.RawMessage) (uint32, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch {
		case s == "nan":
			return quietNaN, nil
		case s == "inf":
			return math.Float32bits(float32(math.Inf(1))), nil
		case s == "-inf":
			return math.Float32bits(float32(math.Inf(-1))), nil
		case strings.HasPrefix(s, "nan:0x"):
			bits, err := strconv.ParseUint(s[6:], 16, 32)
			if err != nil || !math.IsNaN(float64(math.Float32frombits(uint32(bits)))) {
				return 0, fmt.Errorf("bad NaN %q", s)
			}
			return uint32(bits), nil
		}
		return 0, fmt.Errorf("bad float %q", s)
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(n), 32)
	if err != nil {
		return 0, err
	}
	return math.Float32bits(float32(f)), nil
}
