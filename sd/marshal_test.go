package sd

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
)

type Base struct {
	ID     uint32 `sd:"id"`
	Hidden string `sd:"-"`
	Dash   int8   `sd:"-,"`
}

type Inner struct {
	X uint8 `sd:"x"`
}

type everything struct {
	Base
	*Extra
	B     bool
	U8    uint8
	U16   uint16
	U32   uint32
	U64   uint64
	U     uint
	I8    int8
	I16   int16
	I32   int32
	I64   int64
	I     int
	F32   float32
	F64   float64
	S     string            `sd:"str"`
	Tags  []string          `sd:"tags"`
	Fixed [2]int16          `sd:"fixed"`
	Bytes []byte            `sd:"bytes"`
	Inner Inner             `sd:"inner"`
	Ptr   *Inner            `sd:"ptr"`
	Map   map[string]uint16 `sd:"map"`
	Any   any               `sd:"any"`
	Raw   Value             `sd:"raw"`
	Omit  string            `sd:"omit,omitempty"`
	NilP  *Inner            `sd:"nilp"`
	NilS  []int8            `sd:"nils"`
	//lint:ignore U1000 present so that Marshal is seen to skip unexported fields
	hidden int
}

type Extra struct {
	Note string `sd:"note"`
}

func sampleEverything() everything {
	return everything{
		Base:  Base{ID: 7, Hidden: "no", Dash: -1},
		Extra: &Extra{Note: "n"},
		B:     true, U8: 255, U16: 65535, U32: 1 << 31, U64: math.MaxUint64, U: 42,
		I8: -128, I16: -32768, I32: math.MinInt32, I64: math.MinInt64, I: -42,
		F32: 1.5, F64: -2.25, S: "héllo",
		Tags:  []string{"a", "b"},
		Fixed: [2]int16{-1, 1},
		Bytes: []byte{0, 255},
		Inner: Inner{X: 1},
		Ptr:   &Inner{X: 2},
		Map:   map[string]uint16{"z": 26, "a": 1},
		Any:   "text",
		Raw:   Uint16(9),
	}
}

func TestMarshalValueKinds(t *testing.T) {
	v, err := MarshalValue(sampleEverything())
	if err != nil {
		t.Fatal(err)
	}
	o := v.Object()
	want := []struct {
		name string
		v    Value
	}{
		{"id", Uint32(7)}, {"-", Int8(-1)}, {"note", String("n")},
		{"B", Bool(true)}, {"U8", Uint8(255)}, {"U16", Uint16(65535)}, {"U32", Uint32(1 << 31)},
		{"U64", Uint64(math.MaxUint64)}, {"U", Uint64(42)},
		{"I8", Int8(-128)}, {"I16", Int16(-32768)}, {"I32", Int32(math.MinInt32)},
		{"I64", Int64(math.MinInt64)}, {"I", Int64(-42)},
		{"F32", Float32(1.5)}, {"F64", Float64(-2.25)}, {"str", String("héllo")},
		{"tags", Array(String("a"), String("b"))},
		{"fixed", Array(Int16(-1), Int16(1))},
		{"bytes", Array(Uint8(0), Uint8(255))},
		{"inner", NewObject().Set("x", Uint8(1)).Value()},
		{"ptr", NewObject().Set("x", Uint8(2)).Value()},
		{"map", NewObject().Set("a", Uint16(1)).Set("z", Uint16(26)).Value()},
		{"any", String("text")}, {"raw", Uint16(9)},
		{"nilp", Null()}, {"nils", Null()},
	}
	if o.Len() != len(want) {
		var names []string
		for e := range o.Entries() {
			names = append(names, e.Name)
		}
		t.Fatalf("got %d properties %v, want %d", o.Len(), names, len(want))
	}
	for i, w := range want {
		e := o.At(i)
		if e.Name != w.name || e.Hash != Hash(w.name) || !e.Value.Equal(w.v) {
			t.Errorf("property %d = %q %v, want %q %v", i, e.Name, e.Value, w.name, w.v)
		}
	}
	// Map keys are sorted, so the output is reproducible.
	m, _ := o.Get("map")
	if m.Object().At(0).Name != "a" {
		t.Errorf("map keys not sorted")
	}
}

func TestMarshalUnmarshalRoundTrip(t *testing.T) {
	in := sampleEverything()
	in.Hidden = "" // tagged "-": never written
	// Map keys are names, which only a __debug__ array carries.
	data, err := encodeConfig{DebugNames: true}.marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out everything
	if err := Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}

	// Without debug names, struct fields still match by hash; map keys
	// come back as hashes.
	data, err = Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out = everything{}
	if err := Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	wantMap := map[string]uint16{"#000000000002b606": 1, "#000000000002b61f": 26}
	if !reflect.DeepEqual(out.Map, wantMap) {
		t.Errorf("map without names = %v, want %v", out.Map, wantMap)
	}
	out.Map = in.Map
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip without names:\n got %+v\nwant %+v", out, in)
	}
}

func TestUnmarshalIntoInterfaceAndMap(t *testing.T) {
	o := NewObject().
		Set("u16", Uint16(7)).Set("i8", Int8(-2)).Set("f32", Float32(1.5)).
		Set("arr", Array(Null(), Bool(true))).
		Set("obj", NewObject().Set("x", Uint8(1)).SetHash(5, Null()).Value()).
		SetHash(debugHash, Array(String("u16")))
	var got any
	if err := UnmarshalValue(o.Value(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"u16": uint16(7), "i8": int8(-2), "f32": float32(1.5),
		"arr": []any{nil, true},
		"obj": map[string]any{"x": uint8(1), "#0000000000000005": nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	var m map[string]int
	if err := UnmarshalValue(NewObject().Set("a", Uint8(1)).Set("b", Int64(-3)).Value(), &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m["a"] != 1 || m["b"] != -3 {
		t.Errorf("map = %v", m)
	}
	var obj Object
	if err := UnmarshalValue(o.Value(), &obj); err != nil || obj.Len() != o.Len() {
		t.Errorf("into Object: %v, %d entries", err, obj.Len())
	}
	var p *Inner = &Inner{X: 9}
	if err := UnmarshalValue(Null(), &p); err != nil || p != nil {
		t.Errorf("Null into pointer: %v, %v", p, err)
	}
	in := Inner{X: 9}
	if err := UnmarshalValue(Null(), &in); err != nil || in.X != 9 {
		t.Errorf("Null into struct changed it: %v, %v", in, err)
	}
}

func TestUnmarshalConversions(t *testing.T) {
	var s struct {
		I8  int8
		U   uint
		F32 float32
		F64 float64
		Arr [2]uint8
	}
	o := NewObject().Set("I8", Uint64(127)).Set("U", Int16(300)).Set("F32", Float64(0.5)).
		Set("F64", Int32(-7)).Set("Arr", Array(Uint8(1), Uint8(2), Uint8(3)))
	if err := UnmarshalValue(o.Value(), &s); err != nil {
		t.Fatal(err)
	}
	if s.I8 != 127 || s.U != 300 || s.F32 != 0.5 || s.F64 != -7 || s.Arr != [2]uint8{1, 2} {
		t.Errorf("got %+v", s)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	type narrow struct {
		Small int8     `sd:"small"`
		U     uint8    `sd:"u"`
		F     float32  `sd:"f"`
		S     string   `sd:"s"`
		List  []uint16 `sd:"list"`
		Inner struct {
			B bool `sd:"b"`
		} `sd:"inner"`
	}
	tests := []struct {
		o        *Object
		path     string
		overflow bool
	}{
		{NewObject().Set("small", Int16(128)), ".small", true},
		{NewObject().Set("small", Uint64(math.MaxUint64)), ".small", true},
		{NewObject().Set("u", Int8(-1)), ".u", true},
		{NewObject().Set("u", Uint16(256)), ".u", true},
		{NewObject().Set("f", Float64(1e300)), ".f", true},
		{NewObject().Set("s", Uint8(1)), ".s", false},
		{NewObject().Set("small", String("x")), ".small", false},
		{NewObject().Set("small", Float32(1)), ".small", false},
		{NewObject().Set("list", Array(Uint16(1), Int32(70000))), ".list[1]", true},
		{NewObject().Set("list", String("x")), ".list", false},
		{NewObject().Set("inner", NewObject().Set("b", Uint8(1)).Value()), ".inner.b", false},
	}
	for _, tt := range tests {
		var n narrow
		err := UnmarshalValue(tt.o.Value(), &n)
		var ue *UnmarshalTypeError
		if !errors.As(err, &ue) || ue.Path != tt.path || ue.Overflow != tt.overflow {
			t.Errorf("%v: error %v, want path %q overflow %v", tt.o.At(0).Name, err, tt.path, tt.overflow)
		}
		// Unmarshal from bytes reports the same error.
		data, _ := Encode(tt.o)
		if err2 := Unmarshal(data, &n); err2 == nil || err == nil || err2.Error() != err.Error() {
			t.Errorf("%v: Unmarshal error %v, UnmarshalValue error %v", tt.o.At(0).Name, err2, err)
		}
	}
	var n narrow
	if err := UnmarshalValue(NewObject().Value(), n); !errors.Is(err, errNotPointer) {
		t.Errorf("non-pointer: %v", err)
	}
	if err := Unmarshal([]byte{1}, &n); !errors.Is(err, ErrTruncated) {
		t.Errorf("bad data: %v", err)
	}
}

func TestMarshalErrors(t *testing.T) {
	type cyclic struct {
		Next *cyclic
	}
	loop := &cyclic{}
	loop.Next = loop
	tests := []struct {
		v    any
		want string
	}{
		{struct{ C chan int }{}, "unsupported type chan int at .C"},
		{struct{ F func() }{}, "unsupported type func() at .F"},
		{struct{ M map[int]string }{M: map[int]string{1: "a"}}, "unsupported type map[int]string at .M"},
		{struct{ L []complex64 }{L: []complex64{1}}, "unsupported type complex64 at .L[0]"},
		{42, "unsupported type int at the root"},
		{[]int{1}, "unsupported type []int at the root"},
		{loop, "sd: maximum depth for nested values exceeded at " + strings.Repeat(".Next", 64)},
		{struct{ S string }{S: "a\x00"}, "sd: invalid string at .S"},
	}
	for _, tt := range tests {
		_, err := Marshal(tt.v)
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("Marshal(%T) error = %v, want suffix %q", tt.v, err, tt.want)
		}
	}
}

type celsius float32

func (c celsius) MarshalSD() (Value, error) { return Int16(int16(c * 10)), nil }

func (c *celsius) UnmarshalSD(v Value) error {
	i, ok := v.AsInt()
	if !ok {
		return errors.New("not a tenth of a degree")
	}
	*c = celsius(i) / 10
	return nil
}

func TestMarshalerInterfaces(t *testing.T) {
	type reading struct {
		T celsius  `sd:"t"`
		P *celsius `sd:"p"`
	}
	p := celsius(-1.5)
	data, err := Marshal(reading{T: 21.5, P: &p})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := Decode(data)
	if v, _ := o.Get("t"); !v.Equal(Int16(215)) {
		t.Errorf("t = %v, want i16(215)", v)
	}
	var r reading
	if err := Unmarshal(data, &r); err != nil || r.T != 21.5 || r.P == nil || *r.P != -1.5 {
		t.Errorf("Unmarshal = %+v, %v", r, err)
	}
}

func TestMarshalDebugNames(t *testing.T) {
	data, err := encodeConfig{DebugNames: true}.marshal(struct {
		Name  string `sd:"name"`
		Inner Inner  `sd:"inner"`
	}{"n", Inner{1}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := decodeConfig{NoDebugNames: true}.decode(data)
	if err != nil {
		t.Fatal(err)
	}
	dbg, _ := o.Get(DebugKey)
	if len(dbg.Array()) != 2 {
		t.Errorf("root __debug__ = %v", dbg)
	}
	inner, _ := o.Get("inner")
	if dbg, _ := inner.Object().Get(DebugKey); len(dbg.Array()) != 1 {
		t.Errorf("inner __debug__ = %v", dbg)
	}
}

func TestStructFieldDominance(t *testing.T) {
	type A struct{ Name, Only string }
	type B struct {
		Name string
		Tag  string `sd:"Only"`
	}
	type outer struct {
		A
		B
		Name string // shallower: wins over A.Name and B.Name
	}
	v, err := MarshalValue(outer{A: A{Name: "a", Only: "ao"}, B: B{Name: "b", Tag: "bt"}, Name: "top"})
	if err != nil {
		t.Fatal(err)
	}
	o := v.Object()
	if got, _ := o.Get("Name"); !got.Equal(String("top")) {
		t.Errorf("Name = %v, want top", got)
	}
	// Only: A.Only (untagged) and B.Tag (tagged "Only") at the same depth:
	// the tagged one wins.
	if got, _ := o.Get("Only"); !got.Equal(String("bt")) {
		t.Errorf("Only = %v, want bt", got)
	}
	if o.Len() != 2 {
		t.Errorf("Len = %d, want 2", o.Len())
	}
}

// TestMarshalMatchesMarshalValue checks that Marshal's direct encoder and
// MarshalValue followed by Encode agree byte for byte.
func TestMarshalMatchesMarshalValue(t *testing.T) {
	type withNil struct {
		*Extra
		M map[string]any `sd:"m"`
		I any            `sd:"i"`
		O *Object        `sd:"o"`
		A [0]int         `sd:"a"`
	}
	values := []any{
		sampleEverything(),
		&Inner{X: 3},
		map[string]any{"b": []any{uint16(1), nil, "s", map[string]int8{"z": -1}}, "a": true},
		withNil{M: map[string]any{}, O: NewObject().Set("k", Null())},
		makeBenchMeta(),
	}
	for _, opts := range []encodeConfig{{}, {DebugNames: true}} {
		for _, v := range values {
			direct, err := opts.marshal(v)
			if err != nil {
				t.Fatalf("%T: %v", v, err)
			}
			val, err := MarshalValue(v)
			if err != nil {
				t.Fatalf("%T: %v", v, err)
			}
			viaTree, err := opts.encode(val.Object())
			if err != nil {
				t.Fatalf("%T: %v", v, err)
			}
			if !bytes.Equal(direct, viaTree) {
				t.Errorf("%T %+v: Marshal differs from Encode(MarshalValue)\n% x\n% x", v, opts, direct, viaTree)
			}
		}
	}
	// Errors carry the same paths.
	big := struct{ L []int8 }{L: make([]int8, 256)}
	_, err1 := Marshal(big)
	val, _ := MarshalValue(big)
	_, err2 := Encode(val.Object())
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("capacity errors differ: %v / %v", err1, err2)
	}
	if _, err := Marshal(nil); err == nil {
		t.Errorf("Marshal(nil) succeeded")
	}
	dst, err := encodeConfig{}.appendMarshal([]byte("x"), Inner{X: 1})
	if err != nil || !bytes.Equal(dst, append([]byte("x"), wobj(went("x", wu8(1)))...)) {
		t.Errorf("AppendMarshal = % x, %v", dst, err)
	}
}

// TestUnmarshalMatchesUnmarshalValue checks that Unmarshal's direct walk
// and Decode followed by UnmarshalValue fill Go values identically.
func TestUnmarshalMatchesUnmarshalValue(t *testing.T) {
	type shapes struct {
		Ptrs   []*Inner          `sd:"ptrs"`
		Arr    [2]string         `sd:"arr"`
		Nested [][]int16         `sd:"nested"`
		Any    []any             `sd:"any"`
		Map    map[string]*Inner `sd:"map"`
		Obj    *Object           `sd:"obj"`
		Val    Value             `sd:"val"`
		Null   *Inner            `sd:"null"`
		NullS  []int             `sd:"nulls"`
		Skip   int               `sd:"-"`
		Inner
	}
	o := NewObject().
		Set("ptrs", Array(NewObject().Set("x", Uint8(1)).Value(), Null())).
		Set("arr", Array(String("a"), String("b"), String("extra"))).
		Set("nested", Array(Array(Int8(-1), Uint16(2)), Array())).
		Set("any", Array(Uint32(7), String("s"), NewObject().Set("k", Bool(true)).Value())).
		Set("map", NewObject().Set("one", NewObject().Set("x", Uint8(5)).Value()).Value()).
		Set("obj", NewObject().Set("z", Null()).Value()).
		Set("val", Float32(2.5)).
		Set("null", Null()).
		Set("nulls", Null()).
		Set("unknown", NewObject().Set("deep", Array(Null())).Value()).
		Set("x", Uint8(9)).
		Set("x", Uint8(10)) // replaces in place
	for _, opts := range []encodeConfig{{}, {DebugNames: true}} {
		data, err := opts.encode(o)
		if err != nil {
			t.Fatal(err)
		}
		prefill := func() shapes { return shapes{Null: &Inner{}, NullS: []int{1}, Skip: 4, Arr: [2]string{"p", "q"}} }
		a, b := prefill(), prefill()
		if err := Unmarshal(data, &a); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := UnmarshalValue(back.Value(), &b); err != nil {
			t.Fatal(err)
		}
		// *Object and Value hold decoder slabs; compare them as values.
		if !a.Obj.Equal(b.Obj) || !a.Val.Equal(b.Val) {
			t.Errorf("Obj/Val differ")
		}
		a.Obj, b.Obj, a.Val, b.Val = nil, nil, Value{}, Value{}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("DebugNames %v:\n Unmarshal     %+v\n UnmarshalValue %+v", opts.DebugNames, a, b)
		}
		if a.X != 10 || a.Null != nil || a.NullS != nil || a.Skip != 4 || a.Arr != [2]string{"a", "b"} || len(a.Nested) != 2 {
			t.Errorf("unexpected result %+v", a)
		}
	}
}

// TestConcurrentFirstUse builds the per-type functions of a recursive type
// from several goroutines at once (run with -race).
func TestConcurrentFirstUse(t *testing.T) {
	type node struct {
		Name string  `sd:"name"`
		Kids []*node `sd:"kids"`
	}
	tree := &node{Name: "root", Kids: []*node{{Name: "a"}, {Name: "b", Kids: []*node{{Name: "c"}}}}}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, err := Marshal(tree)
			if err != nil {
				errs <- err
				return
			}
			var back node
			if err := Unmarshal(data, &back); err != nil {
				errs <- err
				return
			}
			if !reflect.DeepEqual(&back, tree) {
				errs <- errors.New("round trip changed the tree")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
