package bo3d

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
)

// Vertex formats of the BPX models written by ToModel. A BPX model names its
// vertex format by the §7 hash (64-bit DJB2, sd.Hash) of the format asset's
// virtual path; these are the paths and their hashes. Both are vertices of
// little-endian float32s in the layout of model.PNU*: position x, y, z
// (offset 0), normal x, y, z (12), texture u, v (24).
const (
	// VertexFormatPNU is the 32-byte vertex without colour, used when no
	// mesh of the file has vertex colours.
	VertexFormatPNU            = "vertex/P3F_N3F_T2F"
	VertexFormatPNUHash uint64 = 0x57447a5cfc516f2c
	// VertexFormatPNUC adds R, G, B, A unsigned bytes at offset 32 (36 bytes
	// in all), used when any mesh has vertex colours. A is always 255;
	// meshes without colours get white.
	VertexFormatPNUC            = "vertex/P3F_N3F_T2F_C4UB"
	VertexFormatPNUCHash uint64 = 0xf007e5cfb10e8859
	// VertexSizePNUC is the size of a VertexFormatPNUC vertex.
	VertexSizePNUC = 36
)

// metaSource is the value of the "source" property that marks metadata
// written by ToModel.
const metaSource = "bo3d"

// ToModel converts f to a BPX model and the SD metadata object that
// carries what the model's sections cannot. f must pass Validate and have
// at most model.MaxBones entities; errors match ErrInvalid.
//
// The mapping:
//
//   - Each mesh becomes a VertexArray in VertexFormatPNU (or
//     VertexFormatPNUC when any mesh has vertex colours), with float32
//     vertices (16-bit files widen exactly), linked to an IndexArray of its
//     triangles, 3 uint32 indices each. MaterialHash is the hash of the
//     texture name (0 when untextured). A file without meshes gets one
//     empty VertexArray, since a model needs one.
//   - Every entity becomes a bone, BoneID = entity index, named by the
//     entity name (in the Strings section). Head is the entity's origin in
//     the bind pose, Tail the point one unit along its local Y axis, both
//     in scene space, computed from the local transforms with the rotation
//     normalised.
//   - Every keyframe becomes a FrameArray bone transform (rotation as w, x,
//     y, z, local position and scale, as in BO3D), entity by entity in
//     keyframe order. Keyframes are kept, not resampled into every frame:
//     the AnimationArray holds one int32 (LE) frame number per transform.
//   - The SD object (the hierarchy) holds "source" = "bo3d", "version",
//     "floatBits", "vertexFormat", "quaternion" = "wxyz" and "entities":
//     an array of arrays (chunks of at most 255) of one object per entity
//     with "name" (or "nameHex" when the name is not UTF-8 without NUL),
//     "parent", "position", "scale", "rotation", "animLength", "keyframes"
//     (count, when any) and, for meshes, "mesh" (VertexArray index),
//     "texture" (or "textureHex"), "color" (the 4 raw bytes as a uint32
//     LE), "alpha", "fx", "colors" (whether the mesh has vertex colours)
//     and "bones" (chunked arrays of [entity, first, last]).
//
// Coordinates are copied as stored: bOGL's convention, not BPX's left-handed
// Z-up one. Nothing of f is lost except that a signalling NaN in an entity
// transform or alpha becomes quiet (SD floats go through float64).
func ToModel(f *File) (*model.Model, *sd.Object, error) {
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	if len(f.Entities) > model.MaxBones {
		return nil, nil, invalidf("%d entities: a BPX BoneArray holds at most %d", len(f.Entities), model.MaxBones)
	}
	colored := false
	for i := range f.Entities {
		if m := f.Entities[i].Mesh; m != nil && len(m.Colors) > 0 {
			colored = true
		}
	}
	vsize, format, hash := model.PNUSize, VertexFormatPNU, VertexFormatPNUHash
	if colored {
		vsize, format, hash = VertexSizePNUC, VertexFormatPNUC, VertexFormatPNUCHash
	}
	m := &model.Model{TypeExt: model.TypeExt{VertexFormatHash: hash}, Bones: make([]model.Bone, len(f.Entities))}
	meta := sd.NewObject().
		Set("source", sd.String(metaSource)).
		Set("version", sd.Int32(f.Version)).
		Set("floatBits", sd.Uint8(uint8(f.FloatBits))).
		Set("vertexFormat", sd.String(format)).
		Set("quaternion", sd.String("wxyz"))
	global := globalTransforms(f)
	var anim []byte
	ents := make([]sd.Value, len(f.Entities))
	for i := range f.Entities {
		e := &f.Entities[i]
		o := sd.NewObject()
		setText(o, "name", e.Name)
		o.Set("parent", sd.Int32(e.Parent)).
			Set("position", floatArray(e.Position[:])).
			Set("scale", floatArray(e.Scale[:])).
			Set("rotation", floatArray(e.Rotation[:])).
			Set("animLength", sd.Int32(e.AnimLength))
		m.Bones[i] = model.Bone{Head: global[i].apply([3]float64{0, 0, 0}), Tail: global[i].apply([3]float64{0, 1, 0})}
		if validText(e.Name) {
			m.Bones[i].Name = e.Name
		}
		if len(e.Keyframes) > 0 {
			o.Set("keyframes", sd.Uint32(uint32(len(e.Keyframes))))
		}
		for _, k := range e.Keyframes {
			m.Frames = append(m.Frames, model.BoneTransform{Rotation: k.Rotation, Position: k.Position, Scale: k.Scale, BoneID: uint32(i)})
			anim = binary.LittleEndian.AppendUint32(anim, uint32(k.Frame))
		}
		if e.Mesh != nil {
			if err := meshToModel(m, o, e.Mesh, vsize); err != nil {
				return nil, nil, invalidf("entity %d: %v", i, err)
			}
		}
		ents[i] = o.Value()
	}
	if len(m.VertexArrays) == 0 {
		m.VertexArrays = []*model.VertexArray{{VertexSize: vsize, Data: []byte{}}}
	}
	list, err := chunked(ents)
	if err != nil {
		return nil, nil, invalidf("entities: %v", err)
	}
	meta.Set("entities", list)
	if len(m.Frames) > 0 {
		m.Animation = anim
	}
	return m, meta, nil
}

// meshToModel adds the VertexArray and IndexArray of mesh to m and its
// properties to the entity object o.
func meshToModel(m *model.Model, o *sd.Object, mesh *Mesh, vsize int) error {
	o.Set("mesh", sd.Uint32(uint32(len(m.VertexArrays))))
	setText(o, "texture", mesh.Texture)
	o.Set("color", sd.Uint32(binary.LittleEndian.Uint32(mesh.Color[:]))).
		Set("alpha", sd.Float32(mesh.Alpha)).
		Set("fx", sd.Uint32(mesh.FX)).
		Set("colors", sd.Bool(len(mesh.Colors) > 0))
	if len(mesh.Bones) > 0 {
		bones := make([]sd.Value, len(mesh.Bones))
		for k, b := range mesh.Bones {
			bones[k] = sd.Array(sd.Int32(b.Entity), sd.Int32(b.First), sd.Int32(b.Last))
		}
		list, err := chunked(bones)
		if err != nil {
			return err
		}
		o.Set("bones", list)
	}
	ia := &model.IndexArray{Indices: make([]uint32, 0, 3*len(mesh.Triangles))}
	for _, t := range mesh.Triangles {
		ia.Indices = append(ia.Indices, uint32(t[0]), uint32(t[1]), uint32(t[2]))
	}
	var hash uint64
	if mesh.Texture != "" {
		hash = sd.Hash(mesh.Texture)
	}
	m.VertexArrays = append(m.VertexArrays, &model.VertexArray{MaterialHash: hash, VertexSize: vsize, Data: packVertices(mesh, vsize), Indices: ia})
	m.IndexArrays = append(m.IndexArrays, ia)
	return nil
}

// packVertices lays out the vertices of mesh in VertexFormatPNU (vsize 32)
// or VertexFormatPNUC (36).
func packVertices(mesh *Mesh, vsize int) []byte {
	b := make([]byte, 0, vsize*len(mesh.Vertices))
	for i := range mesh.Vertices {
		v := &mesh.Vertices[i]
		b = appendF32s(b, v.Position[0], v.Position[1], v.Position[2], v.Normal[0], v.Normal[1], v.Normal[2], v.UV[0], v.UV[1])
		if vsize == VertexSizePNUC {
			c := RGB{255, 255, 255}
			if len(mesh.Colors) > 0 {
				c = mesh.Colors[i]
			}
			b = append(b, c[0], c[1], c[2], 255)
		}
	}
	return b
}

// WriteModel writes f to w as a complete BPX model file: the sections of
// ToModel's model, then an SD section (type 0xFE) with its metadata and
// debug names. Sections are stored as o asks.
func WriteModel(w io.Writer, f *File, o bpx.SectionOptions) error {
	m, meta, err := ToModel(f)
	if err != nil {
		return err
	}
	data, err := sd.Encode(meta, sd.WithDebugNames())
	if err != nil {
		return invalidf("metadata: %v", err)
	}
	bw := bpx.NewWriter(w)
	if err := model.Write(bw, m, o); err != nil {
		bw.Close()
		return err
	}
	if err := bw.WriteSection(bpx.SectionTypeStructuredData, o, data); err != nil {
		bw.Close()
		return err
	}
	return bw.Close()
}

// floatArray returns the values as an SD array of Float32.
func floatArray(vals []float32) sd.Value {
	a := make([]sd.Value, len(vals))
	for i, v := range vals {
		a[i] = sd.Float32(v)
	}
	return sd.Array(a...)
}

// maxChunked is the most values chunked can hold: 255 chunks of 255.
const maxChunked = sd.MaxEntries * sd.MaxEntries

// chunked returns vals as an SD array of arrays of at most 255 values each,
// since an SD array holds at most 255 values.
func chunked(vals []sd.Value) (sd.Value, error) {
	if len(vals) > maxChunked {
		return sd.Value{}, fmt.Errorf("%d values, SD metadata holds at most %d", len(vals), maxChunked)
	}
	var chunks []sd.Value
	for len(vals) > 0 {
		n := min(len(vals), sd.MaxEntries)
		chunks = append(chunks, sd.Array(vals[:n]...))
		vals = vals[n:]
	}
	return sd.Array(chunks...), nil
}

// setText stores s under key as an SD string, or under key+"Hex" as hex
// when an SD string cannot hold it; an empty s is not stored.
func setText(o *sd.Object, key, s string) {
	switch {
	case s == "":
	case validText(s):
		o.Set(key, sd.String(s))
	default:
		o.Set(key+"Hex", sd.String(hexString(s)))
	}
}

func hexString(s string) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 2*len(s))
	for i := 0; i < len(s); i++ {
		b[2*i], b[2*i+1] = digits[s[i]>>4], digits[s[i]&15]
	}
	return string(b)
}
