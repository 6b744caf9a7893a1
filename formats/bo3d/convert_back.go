package bo3d

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
)

// ReadModel reads the BPX model in r and converts it to a BO3D file with
// FromModel, using the container's first SD section (type 0xFE) as the
// metadata when there is one. The vertex format must be VertexFormatPNU or
// VertexFormatPNUC (otherwise the error matches ErrUnsupported); model
// errors are returned as model.Read gives them. A model that FromModel
// finds inconsistent gives an error matching both ErrInvalid and
// bpx.ErrFormat.
func ReadModel(r *bpx.Reader) (*File, error) {
	ext, err := model.ParseTypeExt(r.Header.TypeExt)
	if err != nil {
		return nil, err
	}
	vsize, err := vertexSizeOf(ext.VertexFormatHash)
	if err != nil {
		return nil, err
	}
	m, err := model.Read(r, vsize)
	if err != nil {
		return nil, err
	}
	var meta *sd.Object
	if s := r.FindSection(bpx.SectionTypeStructuredData); s != nil {
		data, err := s.Data()
		if err != nil {
			return nil, err
		}
		if meta, err = sd.Decode(data); err != nil {
			return nil, err
		}
	}
	f, err := FromModel(m, meta)
	if errors.Is(err, ErrInvalid) {
		return nil, fmt.Errorf("%w: %w", errModelFormat, err)
	}
	return f, err
}

func vertexSizeOf(hash uint64) (int, error) {
	switch hash {
	case VertexFormatPNUHash:
		return model.PNUSize, nil
	case VertexFormatPNUCHash:
		return VertexSizePNUC, nil
	}
	return 0, fmt.Errorf("bo3d: vertex format hash %#016x is neither %s nor %s: %w", hash, VertexFormatPNU, VertexFormatPNUC, ErrUnsupported)
}

// FromModel converts a BPX model back to a BO3D file. With metadata written
// by ToModel (its "source" is "bo3d") it rebuilds the original file:
// entities, hierarchy, transforms, keyframes (frame numbers from the
// AnimationArray), meshes and bones; ToModel followed by FromModel gives
// back an equal File.
//
// Other models are converted as far as they allow: a root pivot "root",
// then one mesh entity per VertexArray (triangles from its IndexArray, or
// consecutive vertex triples without one), then one pivot per bone, at its
// Head, named after it, with the bone's transforms as keyframes (frame
// numbers from the AnimationArray when it holds one int32 per transform,
// otherwise 0, 1, 2... per bone). Lost in that direction: bone tails and
// the material hash (BO3D has neither), vertex colour alpha, and anything
// in other sections. The file uses 32-bit vertex floats.
//
// The vertex format must be VertexFormatPNU or VertexFormatPNUC. Each mesh
// needs at most 65536 vertices (BO3D triangles use 16-bit indices). Errors
// for inconsistent input match ErrInvalid.
func FromModel(m *model.Model, meta *sd.Object) (*File, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("bo3d: %w: %w", ErrInvalid, err) // matches model.ErrInvalid too
	}
	vsize, err := vertexSizeOf(m.VertexFormatHash)
	if err != nil {
		return nil, err
	}
	if len(m.VertexArrays) > 0 && m.VertexArrays[0].VertexSize != vsize {
		return nil, invalidf("vertex size %d does not match the vertex format (%d)", m.VertexArrays[0].VertexSize, vsize)
	}
	var f *File
	if src, _ := metaValue(meta, "source").AsString(); src == metaSource {
		f, err = fromOwnModel(m, meta)
	} else {
		f, err = fromForeignModel(m)
	}
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

func metaValue(o *sd.Object, key string) sd.Value {
	if o == nil {
		return sd.Null()
	}
	v, _ := o.Get(key)
	return v
}

// frameNumbers returns the AnimationArray as int32 frame numbers, or nil
// when it does not hold exactly one per transform.
func frameNumbers(m *model.Model) []int32 {
	if len(m.Frames) == 0 || len(m.Animation) != 4*len(m.Frames) {
		return nil
	}
	out := make([]int32, len(m.Frames))
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(m.Animation[4*i:]))
	}
	return out
}

func fromOwnModel(m *model.Model, meta *sd.Object) (*File, error) {
	r := metaReader{}
	f := &File{Version: int32(r.int(meta, "version", math.MinInt32, Version)), FloatBits: int(r.int(meta, "floatBits", 16, 32))}
	if f.FloatBits != 16 && f.FloatBits != 32 {
		return nil, invalidf("metadata: floatBits %d (want 16 or 32)", f.FloatBits)
	}
	ents := r.chunks(metaValue(meta, "entities"), "entities")
	if r.err != nil {
		return nil, r.err
	}
	if len(ents) == 0 || (m.Bones != nil && len(ents) != len(m.Bones)) {
		return nil, invalidf("metadata: %d entities for %d bones", len(ents), len(m.Bones))
	}
	frames := frameNumbers(m)
	if len(m.Frames) > 0 && frames == nil {
		return nil, invalidf("AnimationArray of %d bytes for %d bone transforms (want 4 per transform)", len(m.Animation), len(m.Frames))
	}
	f.Entities = make([]Entity, len(ents))
	next := 0 // next bone transform
	usedVA := make(map[int]bool)
	for i, v := range ents {
		r.where = fmt.Sprintf("entity %d", i)
		o := v.Object()
		if o == nil {
			return nil, invalidf("metadata: entity %d is %v, not an object", i, v)
		}
		e := &f.Entities[i]
		e.Name = r.text(o, "name")
		e.Parent = int32(r.int(o, "parent", -1, math.MaxInt32))
		r.floats(o, "position", e.Position[:])
		r.floats(o, "scale", e.Scale[:])
		r.floats(o, "rotation", e.Rotation[:])
		e.AnimLength = int32(r.int(o, "animLength", math.MinInt32, math.MaxInt32))
		if _, ok := o.Get("keyframes"); ok {
			n := int(r.int(o, "keyframes", 1, int64(len(m.Frames)-next)))
			if r.err == nil {
				e.Keyframes = make([]Keyframe, n)
				for k := range e.Keyframes {
					t := m.Frames[next]
					if t.BoneID != uint32(i) {
						return nil, invalidf("bone transform %d belongs to bone %d, metadata expects entity %d", next, t.BoneID, i)
					}
					e.Keyframes[k] = Keyframe{Frame: frames[next], Position: t.Position, Scale: t.Scale, Rotation: t.Rotation}
					next++
				}
			}
		}
		if _, ok := o.Get("mesh"); ok {
			va := int(r.int(o, "mesh", 0, int64(len(m.VertexArrays)-1)))
			if r.err == nil && usedVA[va] {
				return nil, invalidf("metadata: entity %d reuses VertexArray %d", i, va)
			}
			usedVA[va] = true
			e.Mesh = r.mesh(o, m.VertexArrays[min(va, len(m.VertexArrays)-1)])
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	if next != len(m.Frames) {
		return nil, invalidf("metadata accounts for %d of %d bone transforms", next, len(m.Frames))
	}
	return f, nil
}

func fromForeignModel(m *model.Model) (*File, error) {
	f := &File{Version: Version, FloatBits: 32, Entities: []Entity{
		{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}},
	}}
	for k, va := range m.VertexArrays {
		if va.VertexCount() == 0 {
			continue
		}
		mesh, err := meshFromVertexArray(va)
		if err != nil {
			return nil, invalidf("VertexArray %d: %v", k, err)
		}
		mesh.Alpha = 1
		f.Entities = append(f.Entities, Entity{Parent: 0, Name: fmt.Sprintf("mesh%d", k),
			Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}, Mesh: mesh})
	}
	first := len(f.Entities)
	for _, b := range m.Bones {
		f.Entities = append(f.Entities, Entity{Parent: 0, Name: b.Name, Position: b.Head,
			Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}})
	}
	frames := frameNumbers(m)
	for k, t := range m.Frames {
		e := &f.Entities[first+int(t.BoneID)]
		frame := int32(len(e.Keyframes))
		if frames != nil {
			frame = frames[k]
		}
		e.Keyframes = append(e.Keyframes, Keyframe{Frame: frame, Position: t.Position, Scale: t.Scale, Rotation: t.Rotation})
	}
	for i := first; i < len(f.Entities); i++ {
		e := &f.Entities[i]
		// Keyframes must ascend; a foreign FrameArray may be in any order.
		sortKeyframes(e.Keyframes)
		if n := len(e.Keyframes); n > 0 {
			e.AnimLength = e.Keyframes[n-1].Frame
		}
	}
	return f, nil
}

// sortKeyframes sorts by frame, keeping the order of equal frames.
func sortKeyframes(ks []Keyframe) {
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j].Frame < ks[j-1].Frame; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
}

// meshFromVertexArray unpacks va's vertices, colours and triangles.
func meshFromVertexArray(va *model.VertexArray) (*Mesh, error) {
	n := va.VertexCount()
	if n > 1<<16 {
		return nil, fmt.Errorf("%d vertices, more than the 65536 16-bit triangle indices reach", n)
	}
	mesh := &Mesh{Vertices: make([]Vertex, n)}
	colored := va.VertexSize == VertexSizePNUC
	if colored {
		mesh.Colors = make([]RGB, n)
	}
	for i := range mesh.Vertices {
		p := va.Vertex(i)
		v := &mesh.Vertices[i]
		for k := range 3 {
			v.Position[k] = math.Float32frombits(binary.LittleEndian.Uint32(p[model.PNUPosition+4*k:]))
			v.Normal[k] = math.Float32frombits(binary.LittleEndian.Uint32(p[model.PNUNormal+4*k:]))
		}
		for k := range 2 {
			v.UV[k] = math.Float32frombits(binary.LittleEndian.Uint32(p[model.PNUUV+4*k:]))
		}
		if colored {
			copy(mesh.Colors[i][:], p[model.PNUSize:])
		}
	}
	var idx []uint32
	if va.Indices != nil {
		idx = va.Indices.Indices
		if len(idx)%3 != 0 {
			return nil, fmt.Errorf("%d indices is not a whole number of triangles", len(idx))
		}
	} else {
		idx = make([]uint32, n-n%3)
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	mesh.Triangles = make([]Triangle, len(idx)/3)
	for t := range mesh.Triangles {
		// model.Validate guarantees every index is below n ≤ 65536.
		mesh.Triangles[t] = Triangle{uint16(idx[3*t]), uint16(idx[3*t+1]), uint16(idx[3*t+2])}
	}
	return mesh, nil
}

// metaReader reads typed properties of ToModel's metadata, keeping the
// first error.
type metaReader struct {
	err   error
	where string
}

func (r *metaReader) fail(key, format string, args ...any) {
	if r.err == nil {
		at := key
		if r.where != "" {
			at = r.where + ": " + key
		}
		r.err = invalidf("metadata: %s: %s", at, fmt.Sprintf(format, args...))
	}
}

// int returns the integer property key, which must lie in [lo, hi].
func (r *metaReader) int(o *sd.Object, key string, lo, hi int64) int64 {
	v := metaValue(o, key)
	n, ok := v.AsInt()
	if !ok {
		r.fail(key, "%v is not an integer", v)
		return 0
	}
	if n < lo || n > hi {
		r.fail(key, "%d out of range [%d, %d]", n, lo, hi)
		return 0
	}
	return n
}

// floats fills dst from the float array property key.
func (r *metaReader) floats(o *sd.Object, key string, dst []float32) {
	a := metaValue(o, key).Array()
	if len(a) != len(dst) {
		r.fail(key, "want %d floats, got %d values", len(dst), len(a))
		return
	}
	for i, v := range a {
		x, ok := v.AsFloat()
		if !ok {
			r.fail(key, "element %d is %v, not a float", i, v)
			return
		}
		dst[i] = float32(x)
	}
}

// text returns the string property key (or key+"Hex"), "" when absent.
func (r *metaReader) text(o *sd.Object, key string) string {
	if v, ok := o.Get(key); ok {
		s, ok := v.AsString()
		if !ok {
			r.fail(key, "%v is not a string", v)
		}
		return s
	}
	if v, ok := o.Get(key + "Hex"); ok {
		s, _ := v.AsString()
		b, err := hex.DecodeString(s)
		if err != nil {
			r.fail(key+"Hex", "%v", err)
		}
		return string(b)
	}
	return ""
}

// chunks flattens an array of arrays written by chunked.
func (r *metaReader) chunks(v sd.Value, key string) []sd.Value {
	if v.Kind() != sd.KindArray {
		r.fail(key, "%v is not an array", v)
		return nil
	}
	var out []sd.Value
	for i, c := range v.Array() {
		if c.Kind() != sd.KindArray {
			r.fail(key, "chunk %d is %v, not an array", i, c)
			return nil
		}
		out = append(out, c.Array()...)
	}
	return out
}

// mesh rebuilds the mesh described by the entity object o from va.
func (r *metaReader) mesh(o *sd.Object, va *model.VertexArray) *Mesh {
	if r.err != nil {
		return nil
	}
	mesh, err := meshFromVertexArray(va)
	if err != nil {
		r.fail("mesh", "%v", err)
		return nil
	}
	if mesh.Colors != nil {
		if has, _ := metaValue(o, "colors").AsBool(); !has {
			mesh.Colors = nil
		}
	}
	mesh.Texture = r.text(o, "texture")
	binary.LittleEndian.PutUint32(mesh.Color[:], uint32(r.int(o, "color", 0, math.MaxUint32)))
	if a, ok := metaValue(o, "alpha").AsFloat(); ok {
		mesh.Alpha = float32(a)
	} else {
		r.fail("alpha", "not a float")
	}
	mesh.FX = uint32(r.int(o, "fx", 0, math.MaxUint32))
	if v, ok := o.Get("bones"); ok {
		for k, b := range r.chunks(v, "bones") {
			t := b.Array()
			if len(t) != 3 {
				r.fail("bones", "bone %d is %v, want [entity, first, last]", k, b)
				break
			}
			var vals [3]int32
			for j := range vals {
				n, ok := t[j].AsInt()
				if !ok || n < math.MinInt32 || n > math.MaxInt32 {
					r.fail("bones", "bone %d element %d is %v", k, j, t[j])
				}
				vals[j] = int32(n)
			}
			mesh.Bones = append(mesh.Bones, Bone{Entity: vals[0], First: vals[1], Last: vals[2]})
		}
	}
	return mesh
}

// validText reports whether s can be an SD or Strings-section string:
// valid UTF-8 without NUL bytes.
func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
