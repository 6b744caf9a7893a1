package bo3d

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
)

func TestVertexFormatHashes(t *testing.T) {
	if got := sd.Hash(VertexFormatPNU); got != VertexFormatPNUHash {
		t.Errorf("hash(%s) = %#x, constant says %#x", VertexFormatPNU, got, VertexFormatPNUHash)
	}
	if got := sd.Hash(VertexFormatPNUC); got != VertexFormatPNUCHash {
		t.Errorf("hash(%s) = %#x, constant says %#x", VertexFormatPNUC, got, VertexFormatPNUCHash)
	}
}

// writeAndRead converts f to BPX bytes and back.
func writeAndRead(t *testing.T, f *File) (*bpx.Reader, *File) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteModel(&buf, f, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}); err != nil {
		t.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadModel(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, g
}

func TestModelRoundTrip(t *testing.T) {
	for name, f := range fixtures() {
		t.Run(name, func(t *testing.T) {
			m, meta, err := ToModel(f)
			if err != nil {
				t.Fatal(err)
			}
			g, err := FromModel(m, meta)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, f) {
				t.Fatalf("FromModel(ToModel(f)) =\n%+v\nwant\n%+v", g, f)
			}
			r, h := writeAndRead(t, f)
			if !reflect.DeepEqual(h, f) {
				t.Fatalf("through BPX bytes:\n%+v\nwant\n%+v", h, f)
			}
			if r.Header.Type != bpx.TypeModel {
				t.Errorf("type %q", r.Header.Type)
			}
			// And the BO3D bytes are the same.
			if !bytes.Equal(mustEncode(h), mustEncode(f)) {
				t.Error("BO3D bytes differ after the BPX round trip")
			}
		})
	}
}

func sectionTypes(r *bpx.Reader) []uint8 {
	var out []uint8
	for _, s := range r.Sections {
		out = append(out, s.Type)
	}
	return out
}

func TestToModelBoned(t *testing.T) {
	f := bonedMesh(16)
	m, meta, err := ToModel(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.VertexFormatHash != VertexFormatPNUHash || len(m.VertexArrays) != 1 || len(m.IndexArrays) != 1 {
		t.Fatalf("format %#x, %d vertex arrays, %d index arrays", m.VertexFormatHash, len(m.VertexArrays), len(m.IndexArrays))
	}
	va := m.VertexArrays[0]
	if va.VertexSize != 32 || va.VertexCount() != 6 || va.MaterialHash != 0 || va.Indices != m.IndexArrays[0] {
		t.Errorf("vertex array: size %d count %d material %#x", va.VertexSize, va.VertexCount(), va.MaterialHash)
	}
	if want := []uint32{2, 1, 0, 3, 2, 0, 4, 5, 3}; !reflect.DeepEqual(va.Indices.Indices, want) {
		t.Errorf("indices %v, want %v", va.Indices.Indices, want)
	}
	// Vertex 4: position (0, 2, 0.5), normal (0, 1, 0), uv (0.25, 0.5).
	if got, want := va.Vertex(4), model.Float32Bytes(0, 2, 0.5, 0, 1, 0, 0.25, 0.5); !bytes.Equal(got, want) {
		t.Errorf("vertex 4 bytes %x, want %x", got, want)
	}
	wantBones := []model.Bone{
		{Head: [3]float32{0, 0, 0}, Tail: [3]float32{0, 1, 0}, Name: "root"},
		{Head: [3]float32{0, 0, 0}, Tail: [3]float32{0, 1, 0}, Name: "body"},
		{Head: [3]float32{0, 1, 0}, Tail: [3]float32{0, 2, 0}, Name: "hip"},
		{Head: [3]float32{0, 3, 0}, Tail: [3]float32{0, 4, 0}, Name: "knee"},
	}
	if !reflect.DeepEqual(m.Bones, wantBones) {
		t.Errorf("bones %+v", m.Bones)
	}
	var ids []uint32
	for _, fr := range m.Frames {
		ids = append(ids, fr.BoneID)
	}
	if !reflect.DeepEqual(ids, []uint32{2, 2, 2, 3, 3}) {
		t.Errorf("bone ids %v", ids)
	}
	if m.Frames[1].Rotation != [4]float32{0.5, 0.5, 0.5, 0.5} || m.Frames[1].Position != [3]float32{0, 1.5, 0} {
		t.Errorf("transform 1: %+v", m.Frames[1])
	}
	wantAnim := (&wb{}).i32(0, 15, 30, 0, 30).b
	if !bytes.Equal(m.Animation, wantAnim) {
		t.Errorf("animation %x, want %x", m.Animation, wantAnim)
	}
	if v, _ := meta.Get("floatBits"); v.String() != sd.Uint8(16).String() {
		t.Errorf("floatBits %v", v)
	}
	ents, _ := meta.Get("entities")
	body := ents.Array()[0].Array()[1].Object()
	bones, _ := body.Get("bones")
	if n := len(bones.Array()[0].Array()); n != 3 {
		t.Errorf("body bones: %d", n)
	}
	if v, _ := body.Get("mesh"); v.String() != sd.Uint32(0).String() {
		t.Errorf("body mesh index %v", v)
	}
}

func TestToModelTexturedColoured(t *testing.T) {
	f := texturedMesh(32)
	r, _ := writeAndRead(t, f)
	if want := []uint8{2, 3, 4, 255, 254}; !bytes.Equal(sectionTypes(r), want) {
		t.Errorf("section types %v, want %v", sectionTypes(r), want)
	}
	if got := binary.LittleEndian.Uint64(r.Header.TypeExt[:]); got != VertexFormatPNUCHash {
		t.Errorf("TypeExt hash %#x, want %#x", got, VertexFormatPNUCHash)
	}
	m, _, err := ToModel(f)
	if err != nil {
		t.Fatal(err)
	}
	va := m.VertexArrays[0]
	if va.MaterialHash != sd.Hash("crate.png") || va.VertexSize != VertexSizePNUC {
		t.Errorf("material %#x, size %d", va.MaterialHash, va.VertexSize)
	}
	want := append(model.Float32Bytes(-1, -1, 0, 0, 0, 1, 0, 0), 255, 0, 0, 255)
	if got := va.Vertex(0); !bytes.Equal(got, want) {
		t.Errorf("vertex 0 %x, want %x", got, want)
	}
}

func TestToModelPivots(t *testing.T) {
	f := pivotTree(32)
	m, _, err := ToModel(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.VertexArrays) != 1 || m.VertexArrays[0].VertexCount() != 0 || m.Frames != nil || m.Animation != nil {
		t.Errorf("pivots: %d vertex arrays, frames %v", len(m.VertexArrays), m.Frames)
	}
	// arm: rotation (w,x,y,z) = (.5,.5,.5,.5) maps local Y to Z; hand is a
	// child scaled by 2.
	want := map[int]model.Bone{
		1: {Head: [3]float32{1, 2, 3}, Tail: [3]float32{1, 2, 4}, Name: "arm"},
		2: {Head: [3]float32{1, 2, 1.5}, Tail: [3]float32{1, 2, 3.5}, Name: "hand"},
		3: {Head: [3]float32{0, 0, -4}, Tail: [3]float32{0, 1, -4}, Name: "leg"},
	}
	for i, b := range want {
		if !bonesClose(m.Bones[i], b) {
			t.Errorf("bone %d = %+v, want %+v", i, m.Bones[i], b)
		}
	}
	r, g := writeAndRead(t, f)
	if !reflect.DeepEqual(g, f) {
		t.Errorf("round trip: %+v", g)
	}
	if want := []uint8{2, 4, 255, 254}; !bytes.Equal(sectionTypes(r), want) {
		t.Errorf("section types %v, want %v", sectionTypes(r), want)
	}
}

func bonesClose(a, b model.Bone) bool {
	for k := range 3 {
		if math.Abs(float64(a.Head[k]-b.Head[k])) > 1e-6 || math.Abs(float64(a.Tail[k]-b.Tail[k])) > 1e-6 {
			return false
		}
	}
	return a.Name == b.Name
}

func TestModelOddNames(t *testing.T) {
	f := texturedMesh(16)
	f.Entities[0].Name = "bad\xffname\x00"
	f.Entities[0].Mesh.Texture = "C:\\tex\x00.png"
	m, meta, err := ToModel(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bones[0].Name != "" {
		t.Errorf("bone name %q, want empty for a name Strings cannot hold", m.Bones[0].Name)
	}
	g, err := FromModel(m, meta)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, f) {
		t.Errorf("names did not survive: %q, %q", g.Entities[0].Name, g.Entities[0].Mesh.Texture)
	}
}

func TestModelErrors(t *testing.T) {
	big := &File{Version: Version, FloatBits: 32}
	for i := 0; i <= model.MaxBones; i++ {
		big.Entities = append(big.Entities, Entity{Parent: -1})
	}
	if _, _, err := ToModel(big); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "1025 entities") {
		t.Errorf("1025 entities: %v", err)
	}
	bad := bonedMesh(32)
	bad.Entities[1].Mesh.Triangles[0][0] = 99
	if _, _, err := ToModel(bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad triangle: %v", err)
	}

	tamper := []struct {
		name   string
		change func(m *model.Model, meta *sd.Object)
		msg    string
	}{
		{"unknown format", func(m *model.Model, _ *sd.Object) { m.VertexFormatHash = 1 }, "vertex format hash"},
		{"float bits", func(_ *model.Model, o *sd.Object) { o.Set("floatBits", sd.Uint8(24)) }, "floatBits 24"},
		{"entities not array", func(_ *model.Model, o *sd.Object) { o.Set("entities", sd.Uint8(1)) }, "entities"},
		{"animation short", func(m *model.Model, _ *sd.Object) { m.Animation = m.Animation[:4] }, "AnimationArray of 4 bytes"},
		{"transform bone", func(m *model.Model, _ *sd.Object) { m.Frames[0].BoneID = 3 }, "belongs to bone 3"},
		{"bad parent", func(_ *model.Model, o *sd.Object) { entity(o, 3).Set("parent", sd.Int32(3)) }, "parent index 3"},
		{"position", func(_ *model.Model, o *sd.Object) { entity(o, 2).Set("position", sd.String("x")) }, "entity 2: position"},
		{"mesh index", func(_ *model.Model, o *sd.Object) { entity(o, 1).Set("mesh", sd.Uint32(1)) }, "entity 1: mesh: 1 out of range"},
		{"too many keyframes", func(_ *model.Model, o *sd.Object) { entity(o, 3).Set("keyframes", sd.Uint32(3)) }, "keyframes: 3 out of range"},
		{"missing keyframes", func(_ *model.Model, o *sd.Object) { entity(o, 3).Delete("keyframes") }, "accounts for 3 of 5"},
		{"bone triple", func(_ *model.Model, o *sd.Object) {
			entity(o, 1).Set("bones", sd.Array(sd.Array(sd.Array(sd.Int32(1)))))
		}, "want [entity, first, last]"},
		{"hex", func(_ *model.Model, o *sd.Object) {
			entity(o, 0).Delete("name")
			entity(o, 0).Set("nameHex", sd.String("zz"))
		}, "nameHex"},
	}
	for _, tt := range tamper {
		m, meta, err := ToModel(bonedMesh(32))
		if err != nil {
			t.Fatal(err)
		}
		tt.change(m, meta)
		_, err = FromModel(m, meta)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.msg)
		}
		if tt.name == "unknown format" {
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v does not match ErrUnsupported", tt.name, err)
			}
		} else if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v does not match ErrInvalid", tt.name, err)
		}
	}
}

// entity returns the metadata object of entity i.
func entity(meta *sd.Object, i int) *sd.Object {
	v, _ := meta.Get("entities")
	return v.Array()[0].Array()[i].Object()
}

// TestFromForeignModel converts a model this package did not write.
func TestFromForeignModel(t *testing.T) {
	ia := &model.IndexArray{Indices: []uint32{0, 1, 2}}
	m := &model.Model{
		TypeExt: model.TypeExt{VertexFormatHash: VertexFormatPNUHash},
		VertexArrays: []*model.VertexArray{
			{VertexSize: 32, Data: model.Float32Bytes(0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1), Indices: ia},
			{VertexSize: 32, Data: model.Float32Bytes(5, 5, 5, 0, 0, 1, 0, 0, 6, 5, 5, 0, 0, 1, 1, 0, 5, 6, 5, 0, 0, 1, 0, 1)},
		},
		IndexArrays: []*model.IndexArray{ia},
		Bones:       []model.Bone{{Head: [3]float32{0, 1, 0}, Tail: [3]float32{0, 2, 0}, Name: "spine"}},
		Frames: []model.BoneTransform{
			{Rotation: [4]float32{1, 0, 0, 0}, Position: [3]float32{0, 2, 0}, Scale: [3]float32{1, 1, 1}},
			{Rotation: [4]float32{1, 0, 0, 0}, Position: [3]float32{0, 1, 0}, Scale: [3]float32{1, 1, 1}},
		},
		Animation: (&wb{}).i32(20, 10).b,
	}
	f, err := FromModel(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entities) != 4 || f.FloatBits != 32 {
		t.Fatalf("got %d entities, %d bits", len(f.Entities), f.FloatBits)
	}
	names := []string{f.Entities[0].Name, f.Entities[1].Name, f.Entities[2].Name, f.Entities[3].Name}
	if strings.Join(names, ",") != "root,mesh0,mesh1,spine" {
		t.Errorf("names %v", names)
	}
	m0, m1 := f.Entities[1].Mesh, f.Entities[2].Mesh
	if len(m0.Vertices) != 3 || !reflect.DeepEqual(m0.Triangles, []Triangle{{0, 1, 2}}) || !reflect.DeepEqual(m1.Triangles, []Triangle{{0, 1, 2}}) {
		t.Errorf("triangles %v, %v", m0.Triangles, m1.Triangles)
	}
	if m1.Vertices[1].Position != [3]float32{6, 5, 5} || m1.Vertices[2].UV != [2]float32{0, 1} {
		t.Errorf("mesh1 vertices %+v", m1.Vertices)
	}
	spine := f.Entities[3]
	if spine.Position != [3]float32{0, 1, 0} || len(spine.Keyframes) != 2 || spine.Keyframes[0].Frame != 10 ||
		spine.Keyframes[0].Position != [3]float32{0, 1, 0} || spine.AnimLength != 20 {
		t.Errorf("spine %+v", spine)
	}
	// An SD section that is not ours is ignored the same way.
	g, err := FromModel(m, sd.NewObject().Set("source", sd.String("blender")))
	if err != nil || !reflect.DeepEqual(g, f) {
		t.Errorf("foreign metadata: %v", err)
	}
	// Without frame numbers, transforms are numbered per bone.
	m.Animation = nil
	if g, err := FromModel(m, nil); err != nil || g.Entities[3].Keyframes[1].Frame != 1 {
		t.Errorf("no animation: %v", err)
	}
	// Leftover indices do not make a triangle.
	ia.Indices = []uint32{0, 1}
	if _, err := FromModel(m, nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "2 indices") {
		t.Errorf("2 indices: %v", err)
	}
}

func TestFromModelInvalidModel(t *testing.T) {
	m := &model.Model{TypeExt: model.TypeExt{VertexFormatHash: VertexFormatPNUHash}}
	_, err := FromModel(m, nil)
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, model.ErrInvalid) {
		t.Errorf("model without VertexArray: %v", err)
	}
}
