package sd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobpx/bpx/internal/jsonstr"
)

// The typed JSON form is lossless: UnmarshalTypedJSON(MarshalTypedJSON(o))
// equals o bit for bit, names included.
//
//	null, true, false     Null, Bool
//	"text"                String
//	[v, ...]              Array of typed values
//	{"u16": 7}            a number of kind u8 u16 u32 u64 i8 i16 i32 i64 f32 f64;
//	                      floats may also be "+Inf", "-Inf" or "NaN:0x<bits>"
//	{"object": {...}}     Object
//
// The root is always an object, so it is written as its members directly.
// A member key is the property name when known, or "#" followed by 16 hex
// digits of the hash when it is not; a name that itself starts with "#" is
// written with one more "#" in front.

// MarshalTypedJSON returns the lossless typed JSON form of o. It fails with
// an *EncodeError for a value [Encode] would refuse.
func MarshalTypedJSON(o *Object) ([]byte, error) {
	w := typedWriter{maxDepth: DefaultMaxDepth}
	if o == nil {
		o = &Object{}
	}
	if err := w.members(o, 1); err != nil {
		return nil, err
	}
	return w.buf, nil
}

type typedWriter struct {
	buf      []byte
	maxDepth int
}

func (w *typedWriter) members(o *Object, depth int) *EncodeError {
	if depth > w.maxDepth {
		return encErr("", ErrDepth)
	}
	if o.Len() > MaxEntries {
		return encErr("", ErrCapacity)
	}
	w.buf = append(w.buf, '{')
	for i, k := range o.keys {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		switch name := o.nameAt(i); {
		case name == "":
			w.buf = append(w.buf, `"#`...)
			w.buf = appendHex16(w.buf, k)
			w.buf = append(w.buf, '"')
		case name[0] == '#':
			w.buf = jsonstr.Append(w.buf, "#"+name, jsonstr.Go)
		default:
			w.buf = jsonstr.Append(w.buf, name, jsonstr.Go)
		}
		w.buf = append(w.buf, ':')
		if err := w.value(o.vals[i], depth); err != nil {
			return within(keySegment(o, i), err)
		}
	}
	w.buf = append(w.buf, '}')
	return nil
}

func (w *typedWriter) value(v Value, depth int) *EncodeError {
	switch v.kind {
	case KindNull:
		w.buf = append(w.buf, "null"...)
	case KindBool:
		w.buf = strconv.AppendBool(w.buf, v.num != 0)
	case KindString:
		if !validString(v.str) {
			return encErr("", ErrInvalidUTF8)
		}
		w.buf = jsonstr.Append(w.buf, v.str, jsonstr.Go)
	case KindArray:
		if depth+1 > w.maxDepth {
			return encErr("", ErrDepth)
		}
		if len(v.ref.vals) > MaxEntries {
			return encErr("", ErrCapacity)
		}
		w.buf = append(w.buf, '[')
		for i, e := range v.ref.vals {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if err := w.value(e, depth+1); err != nil {
				return within("["+strconv.Itoa(i)+"]", err)
			}
		}
		w.buf = append(w.buf, ']')
	case KindObject:
		w.buf = append(w.buf, `{"object":`...)
		if err := w.members(v.ref, depth+1); err != nil {
			return err
		}
		w.buf = append(w.buf, '}')
	default:
		if v.kind > maxKind {
			return encErr("", ErrTypeCode)
		}
		w.buf = append(w.buf, `{"`...)
		w.buf = append(w.buf, v.kind.String()...)
		w.buf = append(w.buf, `":`...)
		w.buf = appendNumber(w.buf, v, true)
		w.buf = append(w.buf, '}')
	}
	return nil
}

// UnmarshalTypedJSON parses the typed JSON form written by
// [MarshalTypedJSON], enforcing the depth limit ([WithMaxDecodeDepth]) and
// the 255-entry limit. Errors are *SyntaxError values matching ErrSyntax
// (or ErrDepth, ErrCapacity), with the byte offset in data.
func UnmarshalTypedJSON(data []byte, opts ...DecodeOption) (*Object, error) {
	cfg, err := newDecodeConfig(opts)
	if err != nil {
		return nil, err
	}
	return cfg.unmarshalTypedJSON(data)
}

func (opts decodeConfig) unmarshalTypedJSON(data []byte) (*Object, error) {
	p := typedParser{dec: json.NewDecoder(bytes.NewReader(data)), maxDepth: opts.MaxDepth}
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	p.dec.UseNumber()
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, p.fail("root is not an object")
	}
	o, err := p.members(1)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.fail("data after the root object")
	}
	return o, nil
}

type typedParser struct {
	dec      *json.Decoder
	maxDepth int
}

func (p *typedParser) fail(detail string) error {
	return &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrSyntax, Detail: detail}
}

func (p *typedParser) token() (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Offset: se.Offset, Err: ErrSyntax, Detail: err.Error()}
		}
		return nil, &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrSyntax, Detail: err.Error()}
	}
	return tok, nil
}

// members parses object members after the opening brace.
func (p *typedParser) members(depth int) (*Object, error) {
	if depth > p.maxDepth {
		return nil, &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrDepth}
	}
	o := &Object{}
	for {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		if tok == json.Delim('}') {
			return o, nil
		}
		key, _ := tok.(string) // json.Decoder yields only strings here
		hash, name, ok := parseTypedKey(key)
		if !ok {
			return nil, p.fail("bad key " + strconv.Quote(key))
		}
		if o.index(hash) >= 0 {
			return nil, p.fail("duplicate key " + strconv.Quote(key))
		}
		if o.Len() == MaxEntries {
			return nil, &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrCapacity}
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		i := o.set(hash, v)
		if name != "" {
			o.setName(i, name)
		}
	}
}

// parseTypedKey decodes a member key: a name, "##name" for a name starting
// with "#", or "#" and 16 hex digits for a bare hash.
func parseTypedKey(key string) (hash uint64, name string, ok bool) {
	if !strings.HasPrefix(key, "#") {
		return Hash(key), key, true
	}
	if strings.HasPrefix(key, "##") {
		return Hash(key[1:]), key[1:], true
	}
	if len(key) != 17 {
		return 0, "", false
	}
	h, err := strconv.ParseUint(key[1:], 16, 64)
	return h, "", err == nil
}

// value parses one typed value inside a container at depth.
func (p *typedParser) value(depth int) (Value, error) {
	tok, err := p.token()
	if err != nil {
		return Value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return Value{}, nil
	case bool:
		return Bool(t), nil
	case string:
		if !validString(t) {
			return Value{}, &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrInvalidUTF8}
		}
		return String(t), nil
	case json.Number:
		return Value{}, p.fail("untyped number " + t.String())
	case json.Delim:
		if t == '[' {
			return p.array(depth + 1)
		}
		if t == '{' {
			return p.tagged(depth)
		}
	}
	return Value{}, p.fail("unexpected token")
}

func (p *typedParser) array(depth int) (Value, error) {
	if depth > p.maxDepth {
		return Value{}, &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrDepth}
	}
	a := &Object{}
	for p.dec.More() {
		if len(a.vals) == MaxEntries {
			return Value{}, &SyntaxError{Offset: p.dec.InputOffset(), Err: ErrCapacity}
		}
		v, err := p.value(depth)
		if err != nil {
			return Value{}, err
		}
		a.vals = append(a.vals, v)
	}
	if _, err := p.token(); err != nil { // the closing bracket
		return Value{}, err
	}
	return Value{kind: KindArray, ref: a}, nil
}

// tagged parses {"kind": payload} after its opening brace.
func (p *typedParser) tagged(depth int) (Value, error) {
	tok, err := p.token()
	if err != nil {
		return Value{}, err
	}
	tag, _ := tok.(string)
	var v Value
	if tag == "object" {
		if tok, err = p.token(); err != nil {
			return Value{}, err
		}
		if tok != json.Delim('{') {
			return Value{}, p.fail(`"object" needs a JSON object`)
		}
		o, err := p.members(depth + 1)
		if err != nil {
			return Value{}, err
		}
		v = o.Value()
	} else {
		k := kindByName(tag)
		if k.size() <= 0 || k == KindBool {
			return Value{}, p.fail("unknown tag " + strconv.Quote(tag))
		}
		if tok, err = p.token(); err != nil {
			return Value{}, err
		}
		if v, err = parseTypedNumber(k, tok); err != nil {
			return Value{}, p.fail(err.Error())
		}
	}
	if tok, err = p.token(); err != nil {
		return Value{}, err
	}
	if tok != json.Delim('}') {
		return Value{}, p.fail("a typed value has a single member")
	}
	return v, nil
}

func kindByName(name string) Kind {
	for k, n := range kindNames {
		if n == name {
			return Kind(k)
		}
	}
	return maxKind + 1
}

// parseTypedNumber converts the payload of a typed number of kind k.
func parseTypedNumber(k Kind, tok json.Token) (Value, error) {
	bits := k.size() * 8
	if s, ok := tok.(string); ok && k.isFloat() {
		return parseSpecialFloat(k, s)
	}
	n, ok := tok.(json.Number)
	if !ok {
		return Value{}, errors.New(k.String() + " needs a number")
	}
	switch {
	case k.isUnsigned():
		u, err := strconv.ParseUint(n.String(), 10, bits)
		if err != nil {
			return Value{}, err
		}
		return Value{kind: k, num: u}, nil
	case k.isSigned():
		i, err := strconv.ParseInt(n.String(), 10, bits)
		if err != nil {
			return Value{}, err
		}
		return Value{kind: k, num: uint64(i)}, nil
	}
	f, err := strconv.ParseFloat(n.String(), bits)
	if err != nil {
		return Value{}, err
	}
	if k == KindFloat32 {
		return Float32(float32(f)), nil
	}
	return Float64(f), nil
}

func parseSpecialFloat(k Kind, s string) (Value, error) {
	var f float64
	switch s {
	case "+Inf":
		f = math.Inf(1)
	case "-Inf":
		f = math.Inf(-1)
	default:
		hex, ok := strings.CutPrefix(s, "NaN:0x")
		if !ok {
			return Value{}, errors.New("bad float " + strconv.Quote(s))
		}
		bits, err := strconv.ParseUint(hex, 16, k.size()*8)
		v := Value{kind: k, num: bits}
		if f, _ := v.AsFloat(); err != nil || !math.IsNaN(f) {
			return Value{}, errors.New("bad NaN " + strconv.Quote(s))
		}
		return v, nil
	}
	if k == KindFloat32 {
		return Float32(float32(f)), nil
	}
	return Float64(f), nil
}
