package sd

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics, fails only with documented
// errors, and that whatever it accepts re-encodes and decodes to an equal
// value, consuming exactly the same bytes when no Bool byte was coerced.
func FuzzDecode(f *testing.F) {
	f.Add(wobj(went("name", wstr("sample-package"))))
	f.Add(wobj(wentHash(1, wbool(2))))
	f.Add(wobj(wentHash(0x15, []byte{15})))
	f.Add(wobj(wentHash(1, []byte{12, 'a', 'b', 'c'})))
	f.Add(wobj(went("a", warr(wu16(7), wstr("s"), wnull())), went("o", wtobj(went("x", wu8(1)))),
		went("__debug__", warr(wstr("a"), wstr("o")))))
	f.Add(wobj(went("f", wf64bits(0xfff8000000000123)), went("i", wi64(-5000000000)), went("g", wf32(float32(math.Copysign(0, -1))))))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 14, 1, 0, 0, 0, 0, 0, 0, 0, 0, 14, 0})
	if meta, err := (encodeConfig{DebugNames: true}).marshal(makeBenchMeta()); err == nil {
		f.Add(meta) // exercises the struct paths of Unmarshal
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := decodeConfig{MaxDepth: 16}
		o, n, err := opts.decodePrefix(data)
		var direct benchMeta
		directErr := opts.unmarshal(data, &direct)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(data)) {
				t.Fatalf("bad error %v", err)
			}
			if directErr == nil || directErr.Error() != err.Error() {
				t.Fatalf("Unmarshal error %v, Decode error %v", directErr, err)
			}
			return
		}
		if n <= 0 || n > len(data) {
			t.Fatalf("consumed %d of %d bytes", n, len(data))
		}
		enc, err := encodeConfig{MaxDepth: 16}.encode(o)
		if err != nil {
			t.Fatalf("decoded value does not re-encode: %v", err)
		}
		back, err := opts.decode(enc)
		if err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if !back.Equal(o) {
			t.Fatalf("round trip changed the value")
		}
		if len(enc) > n {
			t.Fatalf("re-encoding grew from %d to %d bytes", n, len(enc))
		}
		typed, err := MarshalTypedJSON(o)
		if err != nil {
			t.Fatalf("MarshalTypedJSON: %v", err)
		}
		fromJSON, err := UnmarshalTypedJSON(typed)
		if err != nil {
			t.Fatalf("UnmarshalTypedJSON(%s): %v", typed, err)
		}
		if !fromJSON.Equal(o) {
			t.Fatalf("typed JSON round trip changed the value: %s", typed)
		}
		if _, err := o.MarshalJSON(); err != nil {
			t.Fatalf("plain JSON: %v", err)
		}
		// Unmarshalling hostile data into Go values must not panic, and
		// both ways of doing it must agree.
		var m benchMeta
		viaTree := UnmarshalValue(o.Value(), &m)
		if (viaTree == nil) != (directErr == nil) || (viaTree == nil && !sameMeta(t, m, direct)) {
			t.Fatalf("Unmarshal (%v) and UnmarshalValue (%v) disagree", directErr, viaTree)
		}
		var x any
		if err := UnmarshalValue(o.Value(), &x); err != nil {
			t.Fatalf("Unmarshal into any: %v", err)
		}
	})
}

// sameMeta reports whether a and b hold the same values. reflect.DeepEqual
// is not enough: a NaN float (which hostile data may put in Score or Ratio)
// is not equal to itself, so it compares the encodings, which keep every
// bit of a float, map keys (with debug names) and nil against empty.
func sameMeta(t *testing.T, a, b benchMeta) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ea, err := Marshal(a, WithDebugNames())
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	eb, err := Marshal(b, WithDebugNames())
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return bytes.Equal(ea, eb)
}

// FuzzTypedJSON checks that the typed JSON parser never panics and that
// whatever it accepts encodes and prints back to an equal value.
func FuzzTypedJSON(f *testing.F) {
	f.Add([]byte(`{"u8":{"u8":171},"f":{"f64":"NaN:0x7ff8000000000123"},"##t":"x","#0000000000000abc":[null,false,"s"],"o":{"object":{"x":{"u8":1}}}}`))
	f.Add([]byte(`{"a":{"f32":-0},"b":{"i64":-9223372036854775808},"c":{"u64":18446744073709551615}}`))
	f.Add([]byte(`{"a":[[[]]],"b":{"object":{}}}`))
	f.Add([]byte(`{"a":{"u8":256}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := decodeConfig{MaxDepth: 16}.unmarshalTypedJSON(data)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			return
		}
		enc, err := encodeConfig{MaxDepth: 16}.encode(o)
		if err != nil {
			t.Fatalf("accepted typed JSON does not encode: %v", err)
		}
		back, err := Decode(enc)
		if err != nil || !back.Equal(o) {
			t.Fatalf("encode/decode changed the value: %v", err)
		}
		typed, err := MarshalTypedJSON(o)
		if err != nil {
			t.Fatalf("MarshalTypedJSON: %v", err)
		}
		again, err := UnmarshalTypedJSON(typed)
		if err != nil || !again.Equal(o) {
			t.Fatalf("typed JSON does not round-trip: %v\n%s", err, typed)
		}
	})
}
