package sd

import (
	"math"
	"testing"
)

func TestResolveNames(t *testing.T) {
	inner := NewObject().SetHash(Hash("x"), Uint8(1))
	o := NewObject().
		SetHash(Hash("name"), String("multi")).
		SetHash(Hash("tags"), Array(inner.Value())).
		SetHash(Hash("other"), Null())
	if n := o.ResolveNames("name", "x", "missing", ""); n != 2 {
		t.Errorf("ResolveNames = %d, want 2", n)
	}
	if o.Name(Hash("name")) != "name" || inner.Name(Hash("x")) != "x" || o.Name(Hash("other")) != "" {
		t.Errorf("names: %q %q %q", o.Name(Hash("name")), inner.Name(Hash("x")), o.Name(Hash("other")))
	}
	if n := o.ResolveNames("name"); n != 0 {
		t.Errorf("resolving a known name again counted %d", n)
	}
}

func TestObjectAccessors(t *testing.T) {
	var o Object // the zero Object is usable
	o.Set("a", Uint8(1)).SetHash(7, Null()).Set("b", Bool(true))
	if o.Len() != 3 || o.At(1).Hash != 7 || o.At(1).Name != "" || o.At(2).Name != "b" {
		t.Fatalf("entries: %v %v %v", o.At(0), o.At(1), o.At(2))
	}
	if !o.SetName("a") || o.SetName("zzz") {
		t.Errorf("SetName reports wrongly")
	}
	o.SetHash(Hash("a"), Uint8(2)) // keeps the name
	if e := o.At(0); e.Name != "a" || !e.Value.Equal(Uint8(2)) {
		t.Errorf("SetHash on a named key: %v", e)
	}
	if !o.DeleteHash(7) || o.Len() != 2 || o.At(1).Name != "b" {
		t.Errorf("DeleteHash broke the names: %v", o.At(1))
	}
	n := 0
	for range o.Entries() {
		n++
		break
	}
	if n != 1 {
		t.Errorf("Entries ignored an early break")
	}
	var nilObj *Object
	if nilObj.Len() != 0 || !nilObj.Equal(NewObject()) {
		t.Errorf("nil Object is not empty")
	}
	if NewObject().Set("a", Null()).Equal(NewObject().Set("b", Null())) {
		t.Errorf("objects with different keys are equal")
	}
	if Float64(0).Equal(Float64(math.Copysign(0, -1))) {
		t.Errorf("+0 equals -0")
	}
	if !Float64(math.NaN()).Equal(Float64(math.NaN())) {
		t.Errorf("a NaN differs from the same NaN")
	}
}

func TestValueString(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{Null(), "null"}, {Bool(true), "true"}, {Uint16(7), "u16(7)"}, {Int8(-2), "i8(-2)"},
		{Float32(0.1), "f32(0.1)"}, {Float64(math.Inf(-1)), "f64(-Inf)"}, {String("a\n"), `"a\n"`},
		{Array(Null(), Null()), "[2 elements]"}, {NewObject().Value(), "{0 entries}"},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
	if KindObject.String() != "object" || Kind(15).String() != "Kind(15)" {
		t.Errorf("Kind.String: %s %s", KindObject, Kind(15))
	}
}
