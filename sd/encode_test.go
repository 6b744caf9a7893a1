package sd

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestEncodeKeepsInsertionOrder(t *testing.T) {
	o := NewObject().
		Set("name", String("multi")).
		Set("version", Uint32(3)).
		Set("tags", Array(String("a"), String("b")))
	got, err := Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	want := wobj(
		went("name", wstr("multi")),
		went("version", wu32(3)),
		went("tags", warr(wstr("a"), wstr("b"))),
	)
	if !bytes.Equal(got, want) {
		t.Errorf("Encode = % x\nwant     % x", got, want)
	}
	// The reference's pkg_meta_multi.bpx object is 45 bytes as well.
	if len(got) != 45 {
		t.Errorf("len = %d, want 45", len(got))
	}
}

func TestEncodeSetReplacesInPlace(t *testing.T) {
	o := NewObject().Set("a", Uint8(1)).Set("b", Uint8(2)).Set("a", Uint8(3))
	got, _ := Encode(o)
	want := wobj(went("a", wu8(3)), went("b", wu8(2)))
	if !bytes.Equal(got, want) {
		t.Errorf("Encode = % x, want % x", got, want)
	}
	if !o.Delete("a") || o.Delete("a") || o.Len() != 1 || o.At(0).Name != "b" {
		t.Errorf("Delete did not remove exactly one entry: %v", o.Len())
	}
}

func TestEncodeDebugNames(t *testing.T) {
	inner := NewObject().Set("x", Uint8(1))
	o := NewObject().
		Set("name", String("n")).
		SetHash(42, Null()).
		Set("obj", inner.Value()).
		SetHash(debugHash, Array(String("stale"), String("stale")))
	got, err := encodeConfig{DebugNames: true}.encode(o)
	if err != nil {
		t.Fatal(err)
	}
	want := wobj(
		went("name", wstr("n")),
		wentHash(42, wnull()),
		went("obj", wtobj(went("x", wu8(1)), went("__debug__", warr(wstr("x"))))),
		went("__debug__", warr(wstr("name"), wstr("obj"))),
	)
	if !bytes.Equal(got, want) {
		t.Errorf("Encode = % x\nwant     % x", got, want)
	}
	// Without the option the object is written as it is, stale list and all.
	plain, err := Encode(o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(plain)
	if err != nil {
		t.Fatal(err)
	}
	if dbg, _ := back.Get(DebugKey); len(dbg.Array()) != 2 {
		t.Errorf("plain Encode changed __debug__: %v", dbg)
	}
	// Decoding the debug form resolves every name again.
	back, err = Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name(Hash("name")) != "name" || back.Name(42) != "" {
		t.Errorf("names after round trip: %q %q", back.Name(Hash("name")), back.Name(42))
	}
}

func TestEncodeErrors(t *testing.T) {
	many := make([]Value, 256)
	big := NewObject()
	for i := 0; i < 256; i++ {
		big.SetHash(uint64(i), Null())
	}
	full := NewObject()
	for i := 0; i < 255; i++ {
		full.SetHash(uint64(i), Null())
	}
	full.Set("named", Null()) // 256 with a name
	deep := NewObject()
	for i := 0; i < 70; i++ {
		deep = NewObject().Set("d", deep.Value())
	}
	tests := []struct {
		name string
		o    *Object
		opts encodeConfig
		want error
		path string
	}{
		{"256 elements", NewObject().Set("tags", Array(Null(), Array(many...))), encodeConfig{}, ErrCapacity, ".tags[1]"},
		{"256 properties", big, encodeConfig{}, ErrCapacity, ""},
		{"255+debug", func() *Object {
			o := NewObject()
			for i := 0; i < 254; i++ {
				o.SetHash(uint64(i), Null())
			}
			return o.Set("n", Null())
		}(), encodeConfig{DebugNames: true}, ErrCapacity, ""},
		{"NUL in string", NewObject().Set("s", String("a\x00b")), encodeConfig{}, ErrInvalidUTF8, ".s"},
		{"bad utf8", NewObject().SetHash(1, String("\xff")), encodeConfig{}, ErrInvalidUTF8, ".#0000000000000001"},
		{"bad debug name", NewObject().Set("\xff", Null()), encodeConfig{DebugNames: true}, ErrInvalidUTF8, ".__debug__[0]"},
		{"too deep", deep, encodeConfig{}, ErrDepth, strings.Repeat(".d", 64)},
		{"array too deep", NewObject().Set("a", Array(Array())), encodeConfig{MaxDepth: 2}, ErrDepth, ".a[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("keep")
			out, err := tt.opts.append(dst, tt.o)
			var ee *EncodeError
			if !errors.As(err, &ee) || !errors.Is(err, tt.want) || ee.Path != tt.path {
				t.Fatalf("error = %v, want %v at %q", err, tt.want, tt.path)
			}
			if string(out) != "keep" {
				t.Errorf("dst changed on error: %q", out)
			}
		})
	}
	if _, err := Encode(full); !errors.Is(err, ErrCapacity) {
		t.Errorf("256 properties: %v", err)
	}
}

func TestEncodeNilAndEmpty(t *testing.T) {
	for _, o := range []*Object{nil, NewObject(), {}} {
		got, err := Encode(o)
		if err != nil || !bytes.Equal(got, []byte{0}) {
			t.Errorf("Encode(empty) = % x, %v", got, err)
		}
	}
}
