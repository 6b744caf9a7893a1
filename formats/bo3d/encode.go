package bo3d

import (
	"encoding/binary"
	"io"
	"math"
	"slices"

	"github.com/gobpx/bpx/internal/half"
)

// MarshalBinary returns the BO3D encoding of f. See AppendBinary.
func (f *File) MarshalBinary() ([]byte, error) { return f.AppendBinary(nil) }

// WriteTo writes the BO3D encoding of f to w.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	b, err := f.AppendBinary(nil)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// AppendBinary appends the BO3D encoding of f to b: every entity sized
// exactly (a multiple of 4), lists padded with zero bytes, the entity-list
// length equal to the sum of the entity sizes. 16-bit vertex floats are
// rounded to nearest even, and finite values beyond ±65504 saturate to
// ±65504; infinities and NaNs are kept. Decoding the result and encoding
// it again gives the same bytes.
//
// It checks only what the format needs (see [File.Validate] for the
// references between lists) and returns an error matching ErrInvalid.
func (f *File) AppendBinary(b []byte) ([]byte, error) {
	if err := f.checkHeader(); err != nil {
		return nil, err
	}
	vsize := vertexSize(f.FloatBits)
	var total int64
	for i := range f.Entities {
		e := &f.Entities[i]
		if !parentOK(i, e.Parent) {
			return nil, invalidf("entity %d: %s", i, parentProblem(i, e.Parent))
		}
		if e.Mesh != nil && len(e.Mesh.Vertices) == 0 {
			return nil, invalidf("entity %d: a mesh needs at least one vertex (it would read back as a pivot)", i)
		}
		total += entitySize(e, vsize)
		if total > math.MaxInt32 {
			return nil, invalidf("entity %d: entity list exceeds %d bytes", i, math.MaxInt32)
		}
	}
	b = slices.Grow(b, HeaderSize+int(total))
	base := len(b)
	b = le.AppendUint32(b, Magic)
	b = le.AppendUint32(b, uint32(f.Version))
	b = le.AppendUint32(b, uint32(len(f.Entities)))
	b = le.AppendUint32(b, uint32(total))
	b = le.AppendUint32(b, uint32(f.FloatBits))
	for i := range f.Entities {
		b = appendEntity(b, base, &f.Entities[i], f.FloatBits, vsize)
	}
	return b, nil
}

var le = binary.LittleEndian

// entitySize returns the encoded size of e. The caller checks the total
// against MaxInt32 after each entity; no single term can overflow int64.
func entitySize(e *Entity, vsize int64) int64 {
	n := int64(PivotHeaderSize) + align4(int64(len(e.Keyframes))*KeyframeSize) + align4(int64(len(e.Name)))
	if m := e.Mesh; m != nil {
		n += MeshHeaderSize - PivotHeaderSize +
			align4(int64(len(m.Vertices))*vsize) +
			align4(int64(len(m.Colors))*ColorSize) +
			align4(int64(len(m.Triangles))*TriangleSize) +
			align4(int64(len(m.Texture))) +
			align4(int64(len(m.Bones))*BoneSize)
	}
	return n
}

func appendEntity(b []byte, base int, e *Entity, bits int, vsize int64) []byte {
	b = le.AppendUint32(b, uint32(entitySize(e, vsize)))
	b = le.AppendUint32(b, uint32(e.Parent))
	b = appendF32s(b, e.Position[:]...)
	b = appendF32s(b, e.Scale[:]...)
	b = appendF32s(b, e.Rotation[:]...)
	b = le.AppendUint32(b, uint32(e.AnimLength))
	b = le.AppendUint32(b, uint32(len(e.Keyframes)))
	b = le.AppendUint32(b, uint32(len(e.Name)))
	m := e.Mesh
	if m == nil {
		b = le.AppendUint32(b, 0)
		b = appendKeyframes(b, e.Keyframes)
		return pad(append(b, e.Name...), base)
	}
	b = le.AppendUint32(b, uint32(len(m.Vertices)))
	b = le.AppendUint32(b, uint32(len(m.Colors)))
	b = le.AppendUint32(b, uint32(len(m.Triangles)))
	b = le.AppendUint32(b, uint32(len(m.Texture)))
	b = append(b, m.Color[:]...)
	b = appendF32s(b, m.Alpha)
	b = le.AppendUint32(b, m.FX)
	b = le.AppendUint32(b, uint32(len(m.Bones)))
	b = appendKeyframes(b, e.Keyframes)
	b = pad(append(b, e.Name...), base)
	if bits == 16 {
		b = appendVertices16(b, m.Vertices)
	} else {
		b = appendVertices32(b, m.Vertices)
	}
	b = pad(b, base)
	for _, c := range m.Colors {
		b = append(b, c[:]...)
	}
	b = pad(b, base)
	for _, t := range m.Triangles {
		b = le.AppendUint16(b, t[0])
		b = le.AppendUint16(b, t[1])
		b = le.AppendUint16(b, t[2])
	}
	b = pad(b, base)
	b = pad(append(b, m.Texture...), base)
	for _, bn := range m.Bones {
		b = le.AppendUint32(b, uint32(bn.Entity))
		b = le.AppendUint32(b, uint32(bn.First))
		b = le.AppendUint32(b, uint32(bn.Last))
	}
	return b
}

func appendKeyframes(b []byte, ks []Keyframe) []byte {
	for i := range ks {
		k := &ks[i]
		b = le.AppendUint32(b, uint32(k.Frame))
		b = appendF32s(b, k.Position[:]...)
		b = appendF32s(b, k.Scale[:]...)
		b = appendF32s(b, k.Rotation[:]...)
	}
	return b
}

func appendVertices32(b []byte, vs []Vertex) []byte {
	for i := range vs {
		v := &vs[i]
		b = appendF32s(b, v.UV[0], v.UV[1], v.Normal[0], v.Normal[1], v.Normal[2], v.Position[0], v.Position[1], v.Position[2])
	}
	return b
}

func appendVertices16(b []byte, vs []Vertex) []byte {
	for i := range vs {
		v := &vs[i]
		for _, x := range [8]float32{v.UV[0], v.UV[1], v.Normal[0], v.Normal[1], v.Normal[2], v.Position[0], v.Position[1], v.Position[2]} {
			b = le.AppendUint16(b, half.FromFloat32Sat(x))
		}
	}
	return b
}

func appendF32s(b []byte, xs ...float32) []byte {
	for _, x := range xs {
		b = le.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// pad appends zero bytes until the file, which starts at b[base], has a
// length that is a multiple of 4: lists start 4-aligned.
func pad(b []byte, base int) []byte {
	for (len(b)-base)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
