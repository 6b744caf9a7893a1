package model

import (
	"encoding/binary"
	"math"
)

// Offsets and size of the common position-normal-UV vertex of float32s
// (position x, y, z; normal x, y, z; texture u, v): a convention for use with
// Attribute, not part of the spec, where the vertex format is an external
// asset.
const (
	PNUPosition = 0  // offset of the float32×3 position
	PNUNormal   = 12 // offset of the float32×3 normal
	PNUUV       = 24 // offset of the float32×2 texture coordinates
	PNUSize     = 32 // vertex size
)

// Attribute is a view of one float32 vector attribute (1 to 4 components) of
// every vertex of a VertexArray, such as the position or the texture
// coordinates. It reads the values in place from VertexArray.Data: nothing is
// copied.
type Attribute struct {
	data               []byte
	stride, offset, nc int
	count              int
}

// Attribute returns a view of the float32 attribute of the given number of
// components (1 to 4) found at byte offset in every vertex. It fails
// (ErrInvalid) when the attribute does not lie inside the vertex.
func (v *VertexArray) Attribute(offset, components int) (Attribute, error) {
	if components < 1 || components > 4 {
		return Attribute{}, invalidf("attribute of %d components, want 1 to 4", components)
	}
	if v.VertexSize <= 0 || offset < 0 || offset > v.VertexSize-4*components {
		return Attribute{}, invalidf("attribute of %d float32s at offset %d does not fit a %d-byte vertex", components, offset, v.VertexSize)
	}
	return Attribute{data: v.Data, stride: v.VertexSize, offset: offset, nc: components, count: v.VertexCount()}, nil
}

// Len returns the number of vertices.
func (a Attribute) Len() int { return a.count }

// Components returns the number of float32 components.
func (a Attribute) Components() int { return a.nc }

// At returns the components of vertex i, unused ones zero. It panics if i is
// out of range, like a slice index.
func (a Attribute) At(i int) [4]float32 {
	if uint(i) >= uint(a.count) {
		panic("model: Attribute index out of range")
	}
	var out [4]float32
	p := a.data[i*a.stride+a.offset:]
	for c := 0; c < a.nc; c++ {
		out[c] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*c:]))
	}
	return out
}

// Append appends the components of every vertex to dst, packed, and returns
// the extended slice: a ready-made float32 array for a graphics API.
func (a Attribute) Append(dst []float32) []float32 {
	for i := 0; i < a.count; i++ {
		p := a.data[i*a.stride+a.offset:]
		for c := 0; c < a.nc; c++ {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(p[4*c:])))
		}
	}
	return dst
}

// Float32Bytes returns vals as little-endian float32 bytes, for building
// VertexArray.Data from float32 vertices.
func Float32Bytes(vals ...float32) []byte { return appendFloats(make([]byte, 0, 4*len(vals)), vals) }
