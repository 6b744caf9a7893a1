package sd

import (
	"errors"
	"math"
	"testing"

	"github.com/gobpx/bpx"
)

func TestDecodeEveryKindAtExtremes(t *testing.T) {
	tests := []struct {
		typed []byte
		want  Value
	}{
		{wnull(), Null()},
		{wbool(0), Bool(false)},
		{wbool(1), Bool(true)},
		{wu8(0), Uint8(0)},
		{wu8(math.MaxUint8), Uint8(math.MaxUint8)},
		{wu16(math.MaxUint16), Uint16(math.MaxUint16)},
		{wu32(math.MaxUint32), Uint32(math.MaxUint32)},
		{wu64(math.MaxUint64), Uint64(math.MaxUint64)},
		{wi8(math.MinInt8), Int8(math.MinInt8)},
		{wi8(math.MaxInt8), Int8(math.MaxInt8)},
		{wi16(math.MinInt16), Int16(math.MinInt16)},
		{wi16(math.MaxInt16), Int16(math.MaxInt16)},
		{wi32(math.MinInt32), Int32(math.MinInt32)},
		{wi32(math.MaxInt32), Int32(math.MaxInt32)},
		{wi64(math.MinInt64), Int64(math.MinInt64)},
		{wi64(math.MaxInt64), Int64(math.MaxInt64)},
		{wf32(math.MaxFloat32), Float32(math.MaxFloat32)},
		{wf32(math.SmallestNonzeroFloat32), Float32(math.SmallestNonzeroFloat32)},
		{wf32bits(0x80000000), Float32(float32(math.Copysign(0, -1)))},
		{wf32bits(0x7fc00001), Float32(math.Float32frombits(0x7fc00001))},
		{wf32(float32(math.Inf(-1))), Float32(float32(math.Inf(-1)))},
		{wf64(-math.MaxFloat64), Float64(-math.MaxFloat64)},
		{wf64(math.SmallestNonzeroFloat64), Float64(math.SmallestNonzeroFloat64)},
		{wf64bits(0x8000000000000000), Float64(math.Copysign(0, -1))},
		{wf64bits(0xfff8000000000123), Float64(math.Float64frombits(0xfff8000000000123))},
		{wf64(math.Inf(1)), Float64(math.Inf(1))},
		{wstr(""), String("")},
		{wstr("héllo 你好 😀"), String("héllo 你好 😀")},
		{warr(), Array()},
		{warr(wu16(7), wstr("s"), wnull()), Array(Uint16(7), String("s"), Null())},
		{wtobj(), NewObject().Value()},
		{wtobj(went("x", wu8(1))), NewObject().Set("x", Uint8(1)).Value()},
	}
	for _, tt := range tests {
		data := wobj(went("v", tt.typed))
		o, err := Decode(data)
		if err != nil {
			t.Errorf("%v: Decode(% x): %v", tt.want, data, err)
			continue
		}
		got, ok := o.Get("v")
		if !ok || !got.Equal(tt.want) {
			t.Errorf("Decode(% x) = %v, want %v", data, got, tt.want)
		}
		if o.Len() != 1 {
			t.Errorf("%v: Len = %d", tt.want, o.Len())
		}
		// Re-encoding gives the same bytes back.
		enc, err := Encode(o)
		if err != nil || string(enc) != string(data) {
			t.Errorf("%v: re-encoded as % x, %v; want % x", tt.want, enc, err, data)
		}
	}
}

func TestDecodeAccessors(t *testing.T) {
	data := wobj(
		went("u64", wu64(math.MaxUint64)),
		went("i8", wi8(-2)),
		went("u16", wu16(43981)),
		went("f32", wf32(1.5)),
		went("s", wstr("abc")),
		went("b", wbool(1)),
	)
	o, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) Value { v, _ := o.Get(name); return v }
	if u, ok := get("u64").AsUint(); !ok || u != math.MaxUint64 {
		t.Errorf("u64 AsUint = %d, %v", u, ok)
	}
	if _, ok := get("u64").AsInt(); ok {
		t.Errorf("MaxUint64 AsInt reported ok")
	}
	if i, ok := get("i8").AsInt(); !ok || i != -2 {
		t.Errorf("i8 AsInt = %d, %v", i, ok)
	}
	if _, ok := get("i8").AsUint(); ok {
		t.Errorf("-2 AsUint reported ok")
	}
	if i, ok := get("u16").AsInt(); !ok || i != 43981 {
		t.Errorf("u16 AsInt = %d, %v", i, ok)
	}
	if f, ok := get("f32").AsFloat(); !ok || f != 1.5 {
		t.Errorf("f32 AsFloat = %v, %v", f, ok)
	}
	if _, ok := get("u16").AsFloat(); ok {
		t.Errorf("u16 AsFloat reported ok")
	}
	if s, ok := get("s").AsString(); !ok || s != "abc" {
		t.Errorf("AsString = %q, %v", s, ok)
	}
	if b, ok := get("b").AsBool(); !ok || !b {
		t.Errorf("AsBool = %v, %v", b, ok)
	}
	if _, ok := o.Get("missing"); ok {
		t.Errorf("Get(missing) reported ok")
	}
	if get("s").Array() != nil || get("s").Object() != nil {
		t.Errorf("String value returned an Array or Object")
	}
}

func TestDecodeBool2IsFalse(t *testing.T) {
	// synthetic/sd_bool2.bpx: the reference reads only 1 as true.
	data := wobj(wentHash(1, wbool(2)))
	o, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := o.GetHash(1); !v.Equal(Bool(false)) {
		t.Errorf("bool byte 2 decoded as %v, want false", v)
	}
	_, err = decodeConfig{StrictBool: true}.decode(data)
	checkSyntaxError(t, err, ErrBool, 10)
}

func TestDecodeDuplicateKeyLastWins(t *testing.T) {
	o, err := Decode(wobj(went("a", wu8(1)), went("b", wu8(2)), went("a", wu8(3))))
	if err != nil {
		t.Fatal(err)
	}
	if o.Len() != 2 || o.At(0).Hash != Hash("a") || !o.At(0).Value.Equal(Uint8(3)) {
		t.Errorf("duplicate key: got %d entries, first %v", o.Len(), o.At(0))
	}
}

func TestDecodeIgnoresTrailingData(t *testing.T) {
	one := wobj(went("name", wstr("sample-package")))
	data := cat(one, one) // pkg_meta.bpx stores the object twice
	o, n, err := decodeConfig{}.decodePrefix(data)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(one) || n != 25 {
		t.Errorf("consumed %d bytes, want %d", n, len(one))
	}
	if v, _ := o.Get("name"); !v.Equal(String("sample-package")) {
		t.Errorf("name = %v", v)
	}
}

func TestDecodeKeepsOrder(t *testing.T) {
	o, err := Decode(wobj(went("z", wnull()), went("a", wnull()), went("m", wnull())))
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for h := range o.All() {
		got = append(got, h)
	}
	want := []uint64{Hash("z"), Hash("a"), Hash("m")}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("order = %x, want %x", got, want)
	}
}

func TestDecodeDebugNames(t *testing.T) {
	data := wobj(
		went("name", wstr("x")),
		went("nested", wtobj(
			went("inner", wu8(1)),
			went("__debug__", warr(wstr("inner"), wstr("unused"), wu8(9))),
		)),
		went("anon", wnull()),
		went("__debug__", warr(wstr("name"), wstr("nested"))),
	)
	o, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"name", "nested", "", "__debug__"}
	for i, w := range wantNames {
		if got := o.At(i).Name; got != w {
			t.Errorf("root entry %d name = %q, want %q", i, got, w)
		}
	}
	nested, _ := o.Get("nested")
	if got := nested.Object().Name(Hash("inner")); got != "inner" {
		t.Errorf("nested name = %q, want inner", got)
	}
	o2, err := decodeConfig{NoDebugNames: true}.decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := o2.At(0).Name; got != "" {
		t.Errorf("NoDebugNames still resolved %q", got)
	}
	if o2.Len() != 4 {
		t.Errorf("NoDebugNames Len = %d, want 4 (__debug__ kept)", o2.Len())
	}
}

// checkSyntaxError asserts err is a *SyntaxError for sentinel at offset.
func checkSyntaxError(t *testing.T, err, sentinel error, offset int64) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error = %v, want *SyntaxError", err)
	}
	if !errors.Is(err, sentinel) || se.Offset != offset {
		t.Errorf("error = %v (offset %d), want %v at offset %d", err, se.Offset, sentinel, offset)
	}
	base := bpx.ErrFormat
	if sentinel == ErrDepth {
		base = bpx.ErrTooLarge
	}
	if !errors.Is(err, base) {
		t.Errorf("error %v does not match %v", err, base)
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := func(n int) []byte { // n nested objects below the root
		b := wobj()
		for i := 0; i < n; i++ {
			b = wobj(wentHash(uint64(i), append([]byte{14}, b...)))
		}
		return b
	}
	tests := []struct {
		name string
		data []byte
		opts decodeConfig
		want error
		off  int64
	}{
		{"empty", nil, decodeConfig{}, ErrTruncated, 0},
		{"count only", []byte{1}, decodeConfig{}, ErrTruncated, 1},
		{"hash cut", []byte{1, 1, 2, 3}, decodeConfig{}, ErrTruncated, 1},
		{"no type code", wobj(wentHash(1, nil)), decodeConfig{}, ErrTruncated, 1},
		// synthetic/sd_bad_typecode.bpx: one property of type code 15.
		{"type code 15", wobj(wentHash(0x15, []byte{15})), decodeConfig{}, ErrTypeCode, 9},
		{"type code 255", wobj(went("a", wnull()), went("b", []byte{255})), decodeConfig{}, ErrTypeCode, 18},
		// synthetic/sd_trunc_string.bpx: "abc" without NUL.
		{"string without NUL", wobj(wentHash(1, []byte{12, 'a', 'b', 'c'})), decodeConfig{}, ErrUnterminated, 10},
		{"invalid utf8", wobj(wentHash(1, []byte{12, 'a', 0xff, 0})), decodeConfig{}, ErrInvalidUTF8, 10},
		{"u16 cut", wobj(wentHash(1, []byte{3, 1})), decodeConfig{}, ErrTruncated, 10},
		{"u64 cut", wobj(wentHash(1, wu64(1)[:8])), decodeConfig{}, ErrTruncated, 10},
		{"f32 cut", wobj(wentHash(1, wf32(1)[:1])), decodeConfig{}, ErrTruncated, 10},
		{"bool cut", wobj(wentHash(1, []byte{1})), decodeConfig{}, ErrTruncated, 10},
		{"array count missing", wobj(wentHash(1, []byte{13})), decodeConfig{}, ErrTruncated, 10},
		{"array elements missing", wobj(wentHash(1, []byte{13, 2, 0})), decodeConfig{}, ErrTruncated, 12},
		{"array count 255 on 3 bytes", wobj(wentHash(1, []byte{13, 255, 0, 0, 0})), decodeConfig{}, ErrTruncated, 14},
		{"nested object cut", wobj(wentHash(1, []byte{14, 1, 0})), decodeConfig{}, ErrTruncated, 11},
		{"entries missing", []byte{3, 0, 0, 0, 0, 0, 0, 0, 0, 0}, decodeConfig{}, ErrTruncated, 10},
		{"depth 65 > default", deep(64), decodeConfig{}, ErrDepth, 64 * 10},
		{"depth 3 > 2", deep(2), decodeConfig{MaxDepth: 2}, ErrDepth, 20},
		{"array depth 2 > 1", wobj(wentHash(1, warr())), decodeConfig{MaxDepth: 1}, ErrDepth, 10},
		{"budget", wobj(wentHash(1, warr()), wentHash(2, warr())), decodeConfig{ContainerBudget: 3}, ErrDepth, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := tt.opts.decode(tt.data)
			if o != nil {
				t.Errorf("got an object with the error")
			}
			checkSyntaxError(t, err, tt.want, tt.off)
		})
	}
}

func TestDecodeDepthLimits(t *testing.T) {
	deep := func(n int) []byte {
		b := wobj()
		for i := 0; i < n; i++ {
			b = wobj(wentHash(uint64(i), append([]byte{14}, b...)))
		}
		return b
	}
	// synthetic/sd_deep.bpx is 20 nested objects below the root: depth 21.
	if _, err := Decode(deep(20)); err != nil {
		t.Errorf("depth 21 with the default limit: %v", err)
	}
	if _, err := (decodeConfig{MaxDepth: 21}).decode(deep(20)); err != nil {
		t.Errorf("depth 21 with MaxDepth 21: %v", err)
	}
	if _, err := (decodeConfig{MaxDepth: 16}).decode(deep(20)); !errors.Is(err, ErrDepth) {
		t.Errorf("depth 21 with MaxDepth 16: %v, want ErrDepth", err)
	}
	if _, err := Decode(deep(63)); err != nil {
		t.Errorf("depth 64 with the default limit: %v", err)
	}
	// The reference's shared counter: 14 sibling arrays pass, 15 fail at 16
	// (synthetic/sd_flat_14_arrays.bpx, sd_flat_15_arrays.bpx), although
	// the depth is only 2.
	flat := func(n int) []byte {
		var es [][]byte
		for i := 0; i < n; i++ {
			es = append(es, wentHash(uint64(i), warr()))
		}
		return wobj(es...)
	}
	ref := decodeConfig{ContainerBudget: ReferenceMaxDepth}
	if _, err := ref.decode(flat(14)); err != nil {
		t.Errorf("14 arrays with the reference budget: %v", err)
	}
	if _, err := ref.decode(flat(15)); !errors.Is(err, ErrDepth) {
		t.Errorf("15 arrays with the reference budget: %v, want ErrDepth", err)
	}
	if _, err := Decode(flat(15)); err != nil {
		t.Errorf("15 arrays with the default options: %v", err)
	}
}
