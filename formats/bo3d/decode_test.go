package bo3d

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// goldenTextured16 is texturedMesh(16) written out by hand from the layout
// in the notes: 20-byte header, 92-byte mesh header, then the lists, each
// padded to 4 bytes.
func goldenTextured16() []byte {
	w := &wb{}
	w.u32(Magic, 100, 1, 200, 16)
	w.u32(200).i32(-1)                  // size, parent
	w.f32(0, 0, 0, 1, 1, 1, 1, 0, 0, 0) // position, scale, rotation w x y z
	w.u32(0, 0, 5, 4)                   // anim length, keyframes, name length, vertices
	w.u32(4, 2, 9)                      // colours, triangles, texture name length
	w.raw(0xff, 0x80, 0x00, 0x00)       // entity colour
	w.f32(0.75).u32(FXFullBright|FXNoCull, 0)
	w.str("crate").raw(0, 0, 0) // name + padding
	const one, mone, zero = 0x3c00, 0xbc00, 0
	w.u16(zero, zero, zero, zero, one, mone, mone, zero)
	w.u16(one, zero, zero, zero, one, one, mone, zero)
	w.u16(one, one, zero, zero, one, one, one, zero)
	w.u16(zero, one, zero, zero, one, mone, one, zero)
	w.raw(255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255) // colours: 12 bytes, no padding
	w.u16(2, 1, 0, 3, 2, 0)                               // triangles
	w.str("crate.png").raw(0, 0, 0)
	return w.b
}

func TestDecodeGolden(t *testing.T) {
	b := goldenTextured16()
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := texturedMesh(16); !reflect.DeepEqual(got, want) {
		t.Errorf("Decode(golden) =\n%+v\nwant\n%+v", got, want)
	}
	enc, err := got.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, b) {
		t.Errorf("re-encoded golden differs:\n got %x\nwant %x", enc, b)
	}
}

func TestDecodePivotGolden(t *testing.T) {
	w := &wb{}
	w.u32(Magic, 100, 2, 136, 32)
	w.u32(68).i32(-1).f32(0, 0, 0, 1, 1, 1, 1, 0, 0, 0).u32(0, 0, 4, 0).str("root")
	w.u32(68).i32(0).f32(1, 2, 3, 1, 1, 1, 0.5, 0.5, 0.5, 0.5).u32(0, 0, 3, 0).str("arm").raw(0)
	want := pivotTree(32)
	want.Entities = want.Entities[:2]
	if enc := mustEncode(want); !bytes.Equal(enc, w.b) {
		t.Fatalf("encode:\n got %x\nwant %x", enc, w.b)
	}
	got, err := Decode(w.b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if !got.Entities[0].IsPivot() {
		t.Error("entity 0 should be a pivot")
	}
}

// TestDecodeErrors corrupts good files one field at a time. Offsets refer
// to texturedMesh(32): entity at 20, size 264; name at 112, vertices at
// 120, colours at 248, triangles at 260, texture name at 272, end at 284.
func TestDecodeErrors(t *testing.T) {
	tex := mustEncode(texturedMesh(32))
	piv := mustEncode(pivotTree(32)) // entities at 20, 88, 156, 224; 292 bytes
	if len(tex) != 284 || len(piv) != 292 {
		t.Fatalf("fixture sizes changed: %d, %d", len(tex), len(piv))
	}
	gap := (&wb{}).u32(Magic, 100, 1, 134, 32).
		u32(134).i32(-1).f32(0, 0, 0, 1, 1, 1, 1, 0, 0, 0).u32(0, 0, 0, 1).
		u32(0, 1, 4, 0).f32(1).u32(0, 0).
		f32(0, 0, 0, 0, 1, 0, 0, 0).u16(0, 0, 0).raw(0, 0).str("t.pn").b
	tests := []struct {
		name   string
		in     []byte
		entity int
		off    int64
		msg    string
		is     error
	}{
		{"empty", nil, -1, 0, "shorter than the 20-byte header", nil},
		{"short header", tex[:19], -1, 0, "shorter than", nil},
		{"magic", put32(tex, 0, 0x44334F43), -1, 0, "bad magic", nil},
		{"version 101", put32(tex, 4, 101), -1, 4, "version 101", ErrUnsupported},
		{"vfloat 24", put32(tex, 16, 24), -1, 16, "vertex float width 24", ErrUnsupported},
		{"vfloat 0", put32(tex, 16, 0), -1, 16, "vertex float width 0", ErrUnsupported},
		{"no entities", put32(tex, 8, 0), -1, 8, "entity count 0", nil},
		{"negative entities", put32(tex, 8, -1), -1, 8, "entity count -1", nil},
		{"too many entities", put32(tex, 8, 5), -1, 8, "cannot fit", nil},
		{"huge entity count", put32(tex, 8, math.MaxInt32), -1, 8, "cannot fit", nil},
		{"list too long", put32(tex, 12, 265), -1, 12, "entity list length 265", nil},
		{"list negative", put32(tex, 12, -1), -1, 12, "entity list length -1", nil},
		{"entity below header", put32(tex, 20, 60), 0, 20, "smaller than the 64-byte header", nil},
		{"entity negative size", put32(tex, 20, -4), 0, 20, "entity size -4", nil},
		{"mesh below header", put32(tex, 20, 88), 0, 20, "smaller than the 92-byte mesh header", nil},
		{"entity past end", put32(tex, 20, 268), 0, 20, "runs past the end of the file", nil},
		{"truncated", tex[:200], -1, 12, "entity list length 264 does not fit in the 180 bytes", nil},
		{"truncated, list length fixed", put32(tex[:200], 12, 180), 0, 20, "entity size 264 runs past the end of the file (180 bytes left)", nil},
		{"root parent 0", put32(tex, 24, 0), 0, 24, "parent index 0 out of range", nil},
		{"parent -2", put32(tex, 24, -2), 0, 24, "parent index -2", nil},
		{"self parent", put32(piv, 160, 2), 2, 160, "parent index 2 out of range (want -1 or 0..1)", nil},
		{"forward parent", put32(piv, 92, 3), 1, 92, "parent index 3", nil},
		{"negative keyframes", put32(tex, 72, -1), 0, 72, "negative keyframe count", nil},
		{"negative name", put32(tex, 76, -1), 0, 76, "negative name length", nil},
		{"negative vertices", put32(tex, 80, -1), 0, 80, "negative vertex count", nil},
		{"negative colours", put32(tex, 84, -3), 0, 84, "negative vertex colour count", nil},
		{"negative triangles", put32(tex, 88, -1), 0, 88, "negative triangle count", nil},
		{"negative texture", put32(tex, 92, math.MinInt32), 0, 92, "negative texture name length", nil},
		{"negative bones", put32(tex, 108, -1), 0, 108, "negative bone count", nil},
		{"keyframes overflow", put32(tex, 72, 10), 0, 112, "keyframe list (10 × 44 bytes, padded to 440) runs past the entity end at offset 284", nil},
		{"name overflow", put32(tex, 76, 200), 0, 112, "name list", nil},
		{"vertices overflow", put32(tex, 80, 100), 0, 120, "vertex list", nil},
		{"colours overflow", put32(tex, 84, 100), 0, 248, "vertex colour list", nil},
		{"triangles overflow", put32(tex, 88, 10), 0, 260, "triangle list", nil},
		{"texture overflow", put32(tex, 92, 13), 0, 272, "texture name list", nil},
		{"bones overflow", put32(tex, 108, 1), 0, 284, "bone list", nil},
		{"huge counts", put32(tex, 80, math.MaxInt32), 0, 120, "vertex list", nil},
		{"pivot header cut", put32(piv[:276], 12, 256), 3, 224, "entity header needs 64 bytes, 52 left", nil},
		{"last pivot cut", put32(piv[:290], 12, 270), 3, 224, "runs past the end of the file (66 bytes left)", nil},
		// The loader's unaligned fit check passes this one and then reads
		// the texture name 2 bytes past the entity end (notes §4).
		{"unaligned fit gap", gap, 0, 152, "texture name list (4 × 1 bytes, padded to 4)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Decode(tt.in)
			if err == nil {
				t.Fatalf("no error; decoded %+v", f)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v (%T) is not a *FormatError matching ErrFormat", err, err)
			}
			if fe.Entity != tt.entity || fe.Offset != tt.off {
				t.Errorf("entity %d offset %d, want entity %d offset %d (%v)", fe.Entity, fe.Offset, tt.entity, tt.off, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			if tt.entity >= 0 && !strings.Contains(err.Error(), "entity ") {
				t.Errorf("error %q does not name the entity", err)
			}
		})
	}
	// The gap file is well-formed apart from the missing 2 bytes: giving the
	// entity its padding makes it decode.
	fixed := append(put32(put32(gap, 12, 136), 20, 136), 0, 0)
	if _, err := Decode(fixed); err != nil {
		t.Errorf("gap file with padding: %v", err)
	}
}

// TestDecodeLenient covers what bOGL accepts and this package therefore
// accepts too.
func TestDecodeLenient(t *testing.T) {
	tex := mustEncode(texturedMesh(32))
	t.Run("trailing bytes", func(t *testing.T) {
		f, err := Decode(append(append([]byte(nil), tex...), "junk"...))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustEncode(f), tex) {
			t.Error("trailing bytes changed the decoded file")
		}
	})
	t.Run("non-zero padding", func(t *testing.T) {
		b := append([]byte(nil), tex...)
		b[117], b[118], b[119] = 'x', 'y', 'z' // after "crate"
		b[281], b[282], b[283] = 1, 2, 3       // after "crate.png"
		f, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if f.Entities[0].Name != "crate" || f.Entities[0].Mesh.Texture != "crate.png" {
			t.Errorf("names %q, %q", f.Entities[0].Name, f.Entities[0].Mesh.Texture)
		}
		if !bytes.Equal(mustEncode(f), tex) {
			t.Error("re-encoding did not restore zero padding")
		}
	})
	t.Run("oversized entity", func(t *testing.T) {
		// Entity 0 of a pivot tree claims 8 extra bytes; the next starts after them.
		f := pivotTree(32)
		b := mustEncode(f)
		big := append(append(append([]byte(nil), b[:88]...), 0, 0, 0, 0, 0, 0, 0, 0), b[88:]...)
		big = put32(put32(big, 20, 76), 12, int32(len(big)-HeaderSize))
		g, err := Decode(big)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, f) {
			t.Errorf("got %+v", g)
		}
	})
	t.Run("unaligned entity size", func(t *testing.T) {
		// Size 65 on a 64-byte nameless pivot: the next entity starts at align4.
		w := (&wb{}).u32(Magic, 100, 2, 132, 32)
		w.u32(65).i32(-1).f32(0, 0, 0, 1, 1, 1, 1, 0, 0, 0).u32(0, 0, 0, 0).raw(0, 0, 0, 0)
		w.u32(64).i32(0).f32(0, 0, 0, 1, 1, 1, 1, 0, 0, 0).u32(0, 0, 0, 0)
		f, err := Decode(w.b)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Entities) != 2 || f.Entities[1].Parent != 0 {
			t.Errorf("got %+v", f)
		}
	})
	t.Run("old and odd versions", func(t *testing.T) {
		for _, v := range []int32{0, -5, 99, 100} {
			f, err := Decode(put32(tex, 4, v))
			if err != nil {
				t.Fatalf("version %d: %v", v, err)
			}
			if f.Version != v {
				t.Errorf("version %d decoded as %d", v, f.Version)
			}
		}
	})
	t.Run("colour count differs", func(t *testing.T) {
		f := texturedMesh(32)
		f.Entities[0].Mesh.Colors = f.Entities[0].Mesh.Colors[:1]
		g, err := Decode(mustEncode(f))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, f) {
			t.Errorf("got %+v", g.Entities[0].Mesh)
		}
		if err := g.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate: %v, want ErrInvalid", err)
		}
	})
}

// TestHalfVertices checks the 16-bit vertex path: exact decoding of
// subnormals, infinities and NaN; rounding to nearest even and saturation
// on encoding.
func TestHalfVertices(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	f := texturedMesh(16)
	v := &f.Entities[0].Mesh.Vertices[0]
	v.UV = [2]float32{0.1, 1.0 / (1 << 24)}                     // 0.1 rounds; smallest subnormal
	v.Normal = [3]float32{inf, float32(math.Inf(-1)), nan}      // kept
	v.Position = [3]float32{1e6, -65520, float32(1 + 1.5/1024)} // saturate, saturate, tie → even
	b := mustEncode(f)
	const at = 20 + 92 + 8 // first vertex
	want := (&wb{}).u16(0x2e66, 0x0001, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xfbff, 0x3c02).b
	if got := b[at : at+16]; !bytes.Equal(got, want) {
		t.Fatalf("vertex bytes %x, want %x", got, want)
	}
	g, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	gv := g.Entities[0].Mesh.Vertices[0]
	if gv.UV != [2]float32{0.0999755859375, 5.9604644775390625e-08} {
		t.Errorf("UV %v", gv.UV)
	}
	if !math.IsInf(float64(gv.Normal[0]), 1) || !math.IsInf(float64(gv.Normal[1]), -1) || !math.IsNaN(float64(gv.Normal[2])) {
		t.Errorf("normal %v", gv.Normal)
	}
	if gv.Position != [3]float32{65504, -65504, 1 + 2.0/1024} {
		t.Errorf("position %v", gv.Position)
	}
	if again := mustEncode(g); !bytes.Equal(again, b) {
		t.Error("16-bit special values did not round-trip byte for byte")
	}
}

// TestHalfSubnormalsAll puts every binary16 pattern through a file and back.
func TestHalfSubnormalsAll(t *testing.T) {
	w := (&wb{}).u32(Magic, 100, 1, 92+8192*16, 16)
	w.u32(92+8192*16).i32(-1).f32(0, 0, 0, 1, 1, 1, 1, 0, 0, 0).u32(0, 0, 0, 8192).u32(0, 0, 0, 0).f32(1).u32(0, 0)
	for h := 0; h < 1<<16; h++ {
		w.u16(uint16(h))
	}
	f, err := Decode(w.b)
	if err != nil {
		t.Fatal(err)
	}
	vs := f.Entities[0].Mesh.Vertices
	if got := vs[0].UV[1]; got != 1.0/(1<<24) { // pattern 0x0001
		t.Errorf("subnormal 0x0001 decoded as %g", got)
	}
	if got := vs[0].Position[2]; got != 7.0/(1<<24) { // pattern 0x0007
		t.Errorf("subnormal 0x0007 decoded as %g", got)
	}
	if b := mustEncode(f); !bytes.Equal(b, w.b) {
		t.Error("all 65536 half patterns did not round-trip")
	}
}
