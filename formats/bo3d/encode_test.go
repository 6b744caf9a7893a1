package bo3d

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestRoundTrip(t *testing.T) {
	for name, f := range fixtures() {
		t.Run(name, func(t *testing.T) {
			if err := f.Validate(); err != nil {
				t.Fatalf("fixture invalid: %v", err)
			}
			b, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if len(b)%4 != 0 {
				t.Errorf("file size %d is not a multiple of 4", len(b))
			}
			g, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, f) {
				t.Fatalf("decode(encode(f)) != f:\n got %+v\nwant %+v", g, f)
			}
			b2, err := g.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, b2) {
				t.Fatal("encode(decode(b)) != b")
			}
		})
	}
}

// TestEncodedSizes pins the layout: header sizes, list padding, and the
// entity-list length in the header.
func TestEncodedSizes(t *testing.T) {
	tests := []struct {
		name string
		f    *File
		size int
	}{
		{"pivots", pivotTree(32), 20 + 4*68},
		{"textured 32", texturedMesh(32), 20 + 92 + 8 + 4*32 + 12 + 12 + 12},
		{"textured 16", texturedMesh(16), 20 + 92 + 8 + 4*16 + 12 + 12 + 12},
		// root 68, body 92+4+6·32+0+20(18)+0+36, hip 64+4+132, knee 64+4+88
		{"boned 32", bonedMesh(32), 20 + 68 + (92 + 4 + 192 + 20 + 36) + (64 + 4 + 132) + (64 + 4 + 88)},
		{"boned 16", bonedMesh(16), 20 + 68 + (92 + 4 + 96 + 20 + 36) + (64 + 4 + 132) + (64 + 4 + 88)},
	}
	for _, tt := range tests {
		b := mustEncode(tt.f)
		if len(b) != tt.size {
			t.Errorf("%s: %d bytes, want %d", tt.name, len(b), tt.size)
		}
		if got := int(le32(b, 12)); got != len(b)-HeaderSize {
			t.Errorf("%s: entity list length %d, want %d", tt.name, got, len(b)-HeaderSize)
		}
	}
}

func TestAppendBinaryUnalignedPrefix(t *testing.T) {
	f := texturedMesh(16)
	want := mustEncode(f)
	got, err := f.AppendBinary([]byte("xyz"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got[:3]) != "xyz" || !bytes.Equal(got[3:], want) {
		t.Error("AppendBinary after a 3-byte prefix differs from MarshalBinary")
	}
	var buf bytes.Buffer
	if n, err := f.WriteTo(&buf); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteTo: n=%d err=%v", n, err)
	}
	g, err := Read(&buf)
	if err != nil || !reflect.DeepEqual(g, f) {
		t.Errorf("Read: %v", err)
	}
	var h File
	if err := h.UnmarshalBinary(want); err != nil || !reflect.DeepEqual(&h, f) {
		t.Errorf("UnmarshalBinary: %v", err)
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *File)
		msg    string
	}{
		{"float width", func(f *File) { f.FloatBits = 64 }, "vertex float width 64"},
		{"zero value", func(f *File) { *f = File{} }, "vertex float width 0"},
		{"version", func(f *File) { f.Version = 101 }, "version 101"},
		{"no entities", func(f *File) { f.Entities = nil }, "no entities"},
		{"root parent", func(f *File) { f.Entities[0].Parent = 0 }, "entity 0: parent index 0"},
		{"forward parent", func(f *File) { f.Entities[1].Parent = 3 }, "entity 1: parent index 3"},
		{"empty mesh", func(f *File) { f.Entities[1].Mesh.Vertices = nil }, "entity 1: a mesh needs at least one vertex"},
	}
	for _, tt := range tests {
		f := bonedMesh(32)
		tt.change(f)
		_, err := f.MarshalBinary()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %v, want ErrInvalid mentioning %q", tt.name, err, tt.msg)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *File)
		msg    string
	}{
		{"triangle index", func(f *File) { f.Entities[1].Mesh.Triangles[2][1] = 6 }, "entity 1: triangle 2 uses vertex 6 of 6"},
		{"bone entity", func(f *File) { f.Entities[1].Mesh.Bones[0].Entity = 4 }, "bone 0 names entity 4 of 4"},
		{"bone range", func(f *File) { f.Entities[1].Mesh.Bones[1].Last = 6 }, "bone 1 covers vertices 4..6 of 6"},
		{"bone negative", func(f *File) { f.Entities[1].Mesh.Bones[1].First = -1 }, "bone 1 covers vertices -1..5"},
		{"colours", func(f *File) { f.Entities[1].Mesh.Colors = []RGB{{1, 2, 3}} }, "1 vertex colours for 6 vertices"},
		{"keyframe order", func(f *File) { f.Entities[2].Keyframes[2].Frame = 10 }, "entity 2: keyframe 2 has frame 10, below the previous frame 15"},
		{"parent", func(f *File) { f.Entities[3].Parent = -7 }, "entity 3: parent index -7"},
		{"empty mesh", func(f *File) { f.Entities[1].Mesh.Vertices = nil }, "at least one vertex"},
		{"float width", func(f *File) { f.FloatBits = 8 }, "vertex float width 8"},
	}
	for _, tt := range tests {
		f := bonedMesh(16)
		tt.change(f)
		err := f.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %v, want ErrInvalid mentioning %q", tt.name, err, tt.msg)
		}
	}
	// An empty bone range (0..-1, as bOGL's converter writes) is fine.
	if err := bonedMesh(16).Validate(); err != nil {
		t.Errorf("boned fixture: %v", err)
	}
}

func TestRead(t *testing.T) {
	b := mustEncode(bonedMesh(16))
	f, err := Read(bytes.NewReader(b))
	if err != nil || !reflect.DeepEqual(f, bonedMesh(16)) {
		t.Fatalf("Read: %v", err)
	}
	// A lying entity-list length only sizes the buffer.
	if _, err := Read(bytes.NewReader(put32(b, 12, 1<<30))); !errors.Is(err, ErrFormat) {
		t.Errorf("huge list length: %v", err)
	}
	for _, n := range []int{0, 7, 19} {
		var fe *FormatError
		if _, err := Read(bytes.NewReader(b[:n])); !errors.As(err, &fe) || fe.Offset != 0 {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	if _, err := Read(iotest.ErrReader(io.ErrClosedPipe)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("reader error: %v", err)
	}
	if _, err := Read(io.MultiReader(bytes.NewReader(b[:30]), iotest.ErrReader(io.ErrClosedPipe))); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("reader error after header: %v", err)
	}
}

// TestWidenTo32 re-encodes a 16-bit file at 32 bits (the way the notes
// suggest making 32-bit test files) and back: widening is exact, so the
// 16-bit bytes come back unchanged.
func TestWidenTo32(t *testing.T) {
	b16 := mustEncode(bonedMesh(16))
	f, err := Decode(b16)
	if err != nil {
		t.Fatal(err)
	}
	f.FloatBits = 32
	b32 := mustEncode(f)
	if len(b32) != len(b16)+6*16 {
		t.Errorf("32-bit file is %d bytes, want %d", len(b32), len(b16)+6*16)
	}
	g, err := Decode(b32)
	if err != nil {
		t.Fatal(err)
	}
	g.FloatBits = 16
	if !bytes.Equal(mustEncode(g), b16) {
		t.Error("16 → 32 → 16 bits changed the file")
	}
}

// TestBoneJSON: a Bone's JSON keys are camelCase like the rest of the
// module's JSON.
func TestBoneJSON(t *testing.T) {
	b, err := json.Marshal(Bone{Entity: 2, First: 0, Last: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"entity":2,"first":0,"last":-1}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back Bone
	if err := json.Unmarshal(b, &back); err != nil || back != (Bone{2, 0, -1}) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
