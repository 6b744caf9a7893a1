package blk

import "testing"

func TestLookup(t *testing.T) {
	root := sectionTree()
	root.AddBlock("beta").Add("vec2i", IPoint2(7, 8)).Add("vec2i", IPoint2(9, 10))
	for _, tc := range []struct {
		path string
		want Value
		ok   bool
	}{
		{"int", Int(42), true},
		{"alpha/gamma/vec2i", IPoint2(3, 4), true},
		{"beta/vec2i", IPoint2(1, 2), true},
		{"beta[1]/vec2i", IPoint2(7, 8), true},
		{"beta[1]/vec2i[1]", IPoint2(9, 10), true},
		{"beta[2]/vec2i", Value{}, false},
		{"alpha/nope", Value{}, false},
		{"nope/int", Value{}, false},
	} {
		got, ok := root.Lookup(tc.path)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Lookup(%q) = %#v, %v; want %#v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	if root.LookupBlock("alpha/gamma") != root.Blocks[0].Blocks[0] || root.LookupBlock("") != root {
		t.Error("LookupBlock")
	}
	if c := root.Child("beta"); c != root.Blocks[1] {
		t.Error("Child")
	}
}

func TestValueAccessors(t *testing.T) {
	if v := Int64(-5); v.Int64() != -5 || v.Type() != TypeInt64 || v.Type().Suffix() != "i64" {
		t.Errorf("int64: %#v", v)
	}
	if c := ColorValue(Color{1, 2, 3, 4}); c.Color() != (Color{1, 2, 3, 4}) || c.w[0] != 0x04010203 {
		t.Errorf("color words %#x", c.w[0])
	}
	if f := Point3(1, 2, 3).Floats(); len(f) != 3 || f[2] != 3 {
		t.Errorf("floats %v", f)
	}
	if n := IPoint4(1, -2, 3, -4).Ints(); len(n) != 4 || n[3] != -4 {
		t.Errorf("ints %v", n)
	}
	if m := Matrix([12]float32{11: 7}).Matrix(); m[11] != 7 {
		t.Errorf("matrix %v", m)
	}
	if Str("x").Floats() != nil || Real(1).Ints() != nil {
		t.Error("wrong-type accessors must return nil")
	}
	for typ := Type(0); typ <= 0x0E; typ++ {
		if s, ok := TypeFromSuffix(typ.Suffix()); typ.Valid() != ok || ok && s != typ {
			t.Errorf("suffix round trip of %v", typ)
		}
		_ = typ.String()
	}
}
