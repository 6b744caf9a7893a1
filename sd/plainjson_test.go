package sd

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
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
	deep := strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)
	for _, bad := range []string{``, `[1]`, `{"a": }`, `{"a": 1} {}`, `{"a": 1e999}`, deep} {
		_, err := ObjectFromJSON([]byte(bad))
		var se *SyntaxError
		class := bpx.ErrFormat
		if bad == deep {
			class = bpx.ErrTooLarge
		}
		if !errors.As(err, &se) || !errors.Is(err, class) || se.Offset < 0 || se.Offset > int64(len(bad)) {
			t.Errorf("%q: error %v, want a *SyntaxError inside the input matching %v", bad, err, class)
		}
	}
}

// Plain JSON objects follow the rule of the binary form for repeated keys:
// the last value wins, at the first position.
func TestObjectFromJSONDuplicateKeys(t *testing.T) {
	o, err := ObjectFromJSON([]byte(`{"a": 1, "b": 2, "a": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Len() != 2 || o.At(0).Name != "a" || !o.At(0).Value.Equal(String("x")) {
		t.Errorf("got %v", o)
	}
}
