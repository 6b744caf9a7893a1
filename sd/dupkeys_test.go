package sd

import (
	"errors"
	"reflect"
	"testing"
)

// Duplicate keys: every binary decoding path keeps the last value of a
// repeated key, as the reference does (HashMap::insert), and ignores the
// earlier ones entirely, errors and partial values included.

type dupBuild struct {
	Host string `sd:"host"`
	Jobs int16  `sd:"jobs"`
}

type dupDoc struct {
	Name    string   `sd:"name"`
	Version uint32   `sd:"version"`
	Build   dupBuild `sd:"build"`
	Tags    []string `sd:"tags"`
}

// dupDocument repeats keys at the root and inside a nested object: an
// earlier value of the wrong type (a string for a uint32), an earlier
// object whose fields the later one does not set, and a key repeated three
// times interleaved with another.
func dupDocument() []byte {
	return wobj(
		went("version", wstr("not a number")),
		went("name", wstr("first")),
		went("build", wtobj(went("host", wstr("old-host")), went("jobs", wstr("bad")), went("jobs", wi16(4)))),
		went("tags", warr(wu8(1))),
		went("name", wstr("second")),
		went("version", wu32(7)),
		went("build", wtobj(went("jobs", wi16(8)))),
		went("name", wstr("third")),
		went("tags", warr(wstr("x"), wstr("y"))),
	)
}

var dupWant = dupDoc{Name: "third", Version: 7, Build: dupBuild{Jobs: 8}, Tags: []string{"x", "y"}}

func TestDuplicateKeysDecodeLastWins(t *testing.T) {
	o, err := Decode(dupDocument())
	if err != nil {
		t.Fatal(err)
	}
	want := NewObject().
		Set("version", Uint32(7)).
		Set("name", String("third")).
		Set("build", NewObject().Set("jobs", Int16(8)).Value()).
		Set("tags", Array(String("x"), String("y")))
	if !o.Equal(want) {
		t.Errorf("Decode: got %v, want %v", o, want)
	}
	// The first position is kept.
	if o.At(0).Hash != Hash("version") || o.At(3).Hash != Hash("tags") {
		t.Errorf("order: %v", o)
	}
}

func TestDuplicateKeysUnmarshalLastWins(t *testing.T) {
	data := dupDocument()
	var direct dupDoc
	if err := Unmarshal(data, &direct); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !reflect.DeepEqual(direct, dupWant) {
		t.Errorf("Unmarshal: got %+v, want %+v", direct, dupWant)
	}

	o, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var viaTree dupDoc
	if err := UnmarshalValue(o.Value(), &viaTree); err != nil {
		t.Fatalf("UnmarshalValue: %v", err)
	}
	if !reflect.DeepEqual(viaTree, dupWant) {
		t.Errorf("UnmarshalValue: got %+v, want %+v", viaTree, dupWant)
	}

	// Targets that go through the tree inside Unmarshal: a map, an
	// interface, and a struct holding them.
	var m map[string]any
	if err := Unmarshal(data, &m); err != nil {
		t.Fatalf("Unmarshal into map: %v", err)
	}
	key := func(name string) string { return "#" + hex16(Hash(name)) } // no __debug__ names
	if m[key("name")] != "third" || m[key("version")] != uint32(7) || len(m) != 4 {
		t.Errorf("Unmarshal into map: %v", m)
	}
	var x any
	if err := Unmarshal(data, &x); err != nil || !reflect.DeepEqual(x, m) {
		t.Errorf("Unmarshal into any: %v, %v; want %v", x, err, m)
	}
	var inner struct {
		Build map[string]int16 `sd:"build"`
	}
	if err := Unmarshal(data, &inner); err != nil || !reflect.DeepEqual(inner.Build, map[string]int16{key("jobs"): 8}) {
		t.Errorf("Unmarshal into struct of map: %v, %v", inner.Build, err)
	}
}

// An earlier valid value does not hide a bad last one: every path fails.
func TestDuplicateKeysLastBadValueFails(t *testing.T) {
	data := wobj(went("version", wu32(7)), went("version", wstr("late")))
	var direct dupDoc
	err := Unmarshal(data, &direct)
	var te *UnmarshalTypeError
	if !errors.As(err, &te) || te.Kind != KindString {
		t.Fatalf("Unmarshal: %v, want an UnmarshalTypeError for the string", err)
	}
	o, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var viaTree dupDoc
	if err := UnmarshalValue(o.Value(), &viaTree); err == nil || err.Error() != te.Error() {
		t.Errorf("UnmarshalValue: %v, Unmarshal: %v", err, te)
	}
}
