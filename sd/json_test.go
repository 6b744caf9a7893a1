package sd

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// allTypes mirrors reference-generated/sd_alltypes.bpx, plus the values
// JSON cannot spell: NaN payloads, infinities and negative zero.
func allTypes() *Object {
	return NewObject().
		Set("null", Null()).
		Set("bool", Bool(true)).
		Set("u8", Uint8(171)).
		Set("u16", Uint16(43981)).
		Set("u32", Uint32(3735928559)).
		Set("u64", Uint64(72623859790382856)).
		Set("i8", Int8(-2)).
		Set("i16", Int16(-300)).
		Set("i32", Int32(-70000)).
		Set("i64", Int64(-5000000000)).
		Set("f32", Float32(1.5)).
		Set("f64", Float64(-2.25)).
		Set("str", String("héllo")).
		Set("arr", Array(Uint16(7), String("s"), Null())).
		Set("obj", NewObject().Set("x", Uint8(1)).Value())
}

func TestPlainJSON(t *testing.T) {
	o := allTypes().
		SetHash(0x1234, Float32(float32(math.Inf(-1)))).
		Set("nan", Float64(math.NaN())).
		Set("esc", String("a\"b\\c\n\x01\t<"))
	o.SetHash(debugHash, Array(String("null")))
	got, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"null":null,"bool":true,"u8":171,"u16":43981,"u32":3735928559,` +
		`"u64":72623859790382856,"i8":-2,"i16":-300,"i32":-70000,"i64":-5000000000,` +
		`"f32":1.5,"f64":-2.25,"str":"héllo","arr":[7,"s",null],"obj":{"x":1},` +
		`"#0000000000001234":"-Inf","nan":"NaN","esc":"a\"b\\c\n\u0001\t\u003c"}`
	if string(got) != want {
		t.Errorf("plain JSON\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("plain JSON is not valid JSON")
	}
	// A float32 prints at its own precision.
	v, _ := Float32(0.1).MarshalJSON()
	if string(v) != "0.1" {
		t.Errorf("Float32(0.1) = %s, want 0.1", v)
	}
}

func TestTypedJSON(t *testing.T) {
	o := NewObject().
		Set("u8", Uint8(171)).
		Set("i64", Int64(math.MinInt64)).
		Set("f32", Float32(float32(math.Copysign(0, -1)))).
		Set("f64", Float64(math.Float64frombits(0x7ff8000000000123))).
		Set("inf", Float32(float32(math.Inf(1)))).
		Set("#tag", String("x")).
		SetHash(0xabc, Array(Null(), Bool(false), String("s"))).
		Set("obj", NewObject().Set("x", Uint8(1)).Value())
	got, err := MarshalTypedJSON(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"u8":{"u8":171},"i64":{"i64":-9223372036854775808},"f32":{"f32":-0},` +
		`"f64":{"f64":"NaN:0x7ff8000000000123"},"inf":{"f32":"+Inf"},"##tag":"x",` +
		`"#0000000000000abc":[null,false,"s"],"obj":{"object":{"x":{"u8":1}}}}`
	if string(got) != want {
		t.Errorf("typed JSON\n got %s\nwant %s", got, want)
	}
	back, err := UnmarshalTypedJSON(got)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(o) {
		t.Errorf("typed round trip changed the value")
	}
	for i := 0; i < o.Len(); i++ {
		if a, b := o.At(i), back.At(i); a.Hash != b.Hash || a.Name != b.Name {
			t.Errorf("entry %d: %x %q became %x %q", i, a.Hash, a.Name, b.Hash, b.Name)
		}
	}
	// Every kind at its extremes round-trips as well.
	all := allTypes().Set("f32nan", Float32(math.Float32frombits(0xffc00001)))
	typed, err := MarshalTypedJSON(all)
	if err != nil {
		t.Fatal(err)
	}
	back, err = UnmarshalTypedJSON(typed)
	if err != nil || !back.Equal(all) {
		t.Errorf("alltypes typed round trip: %v\n%s", err, typed)
	}
}

func TestTypedJSONErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{``, ErrSyntax},
		{`[]`, ErrSyntax},
		{`{"a":1}`, ErrSyntax},                             // untyped number
		{`{"a":{"u8":256}}`, ErrSyntax},                    // out of range
		{`{"a":{"i8":-129}}`, ErrSyntax},                   // out of range
		{`{"a":{"u8":1.5}}`, ErrSyntax},                    // not an integer
		{`{"a":{"f32":1e39}}`, ErrSyntax},                  // overflows float32
		{`{"a":{"f64":"NaN:0x0"}}`, ErrSyntax},             // not a NaN
		{`{"a":{"f64":"NaN"}}`, ErrSyntax},                 // no payload
		{`{"a":{"u9":1}}`, ErrSyntax},                      // unknown tag
		{`{"a":{"u8":1,"u16":2}}`, ErrSyntax},              // two members
		{`{"a":{"object":[]}}`, ErrSyntax},                 // object payload not an object
		{`{"a":null,"a":null}`, ErrSyntax},                 // duplicate
		{`{"a":null,"#000000000002b606":null}`, ErrSyntax}, // same hash twice
		{`{"#12":null}`, ErrSyntax},                        // short hash
		{`{"#zz00000000000000":null}`, ErrSyntax},
		{`{} {}`, ErrSyntax},
		{`{"a":"\u0000"}`, ErrInvalidUTF8},
		{`{"a":[` + strings.Repeat(`null,`, 255) + `null]}`, ErrCapacity},
		{`{"a":` + strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64) + `}`, ErrDepth},
		{`{"a":{"object":`, ErrSyntax},
	}
	for _, tt := range tests {
		_, err := UnmarshalTypedJSON([]byte(tt.in))
		var se *SyntaxError
		if !errors.Is(err, tt.want) || !errors.As(err, &se) {
			t.Errorf("UnmarshalTypedJSON(%.40s) = %v, want %v", tt.in, err, tt.want)
		}
	}
	if Hash("a") != 0x2b606 {
		t.Fatalf("test data assumes Hash(a) = 0x2b606, got %#x", Hash("a"))
	}
}

func TestPlainJSONDepth(t *testing.T) {
	cyclic := NewObject()
	cyclic.Set("self", cyclic.Value())
	if _, err := cyclic.MarshalJSON(); !errors.Is(err, ErrDepth) {
		t.Errorf("cyclic object: %v, want ErrDepth", err)
	}
	if _, err := MarshalTypedJSON(cyclic); !errors.Is(err, ErrDepth) {
		t.Errorf("cyclic object, typed: %v, want ErrDepth", err)
	}
	if _, err := Encode(cyclic); !errors.Is(err, ErrDepth) {
		t.Errorf("cyclic object, Encode: %v, want ErrDepth", err)
	}
	deep := NewObject()
	for i := 1; i < DefaultMaxDepth; i++ { // 64 levels in all
		deep = NewObject().Set("d", deep.Value())
	}
	if _, err := deep.MarshalJSON(); err != nil {
		t.Errorf("depth 64: %v", err)
	}
	arr := Array()
	for i := 2; i < DefaultMaxDepth; i++ {
		arr = Array(arr)
	}
	if _, err := NewObject().Set("a", arr).MarshalJSON(); err != nil {
		t.Errorf("arrays to depth 64: %v", err)
	}
	if _, err := NewObject().Set("a", Array(arr)).MarshalJSON(); !errors.Is(err, ErrDepth) {
		t.Errorf("arrays to depth 65: %v", err)
	}
	var nilObj *Object
	if b, err := nilObj.MarshalJSON(); err != nil || string(b) != "{}" {
		t.Errorf("nil Object = %s, %v", b, err)
	}
}
