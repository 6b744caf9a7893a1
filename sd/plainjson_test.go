package sd

import (
	"strings"
	"testing"
)

func TestObjectFromJSON(t *testing.T) {
	o, err := ObjectFromJSON([]byte(`{"name": "pack", "version": 3, "big": 18446744073709551615,
		"ratio": 0.5, "neg": -2, "tags": ["a", true, null], "nested": {"x": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key  string
		kind Kind
	}{{"name", KindString}, {"version", KindInt64}, {"big", KindUint64}, {"ratio", KindFloat64},
		{"neg", KindInt64}, {"tags", KindArray}, {"nested", KindObject}}
	if o.Len() != len(want) {
		t.Fatalf("%d entries, want %d", o.Len(), len(want))
	}
	for i, w := range want {
		e := o.At(i)
		if e.Name != w.key || e.Value.Kind() != w.kind {
			t.Errorf("entry %d = %q %v, want %q %v", i, e.Name, e.Value.Kind(), w.key, w.kind)
		}
	}
	v, _ := o.Get("version")
	if i, ok := v.AsInt(); !ok || i != 3 {
		t.Errorf("version = %v", v)
	}
	// it survives the wire format
	b, err := Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{``, `[1]`, `{"a": }`, `{"a": 1} {}`, strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)} {
		if _, err := ObjectFromJSON([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
