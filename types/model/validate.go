package model

import (
	"math"
	"strings"
	"unicode/utf8"
)

// maxSection is the largest section a BPX container holds.
const maxSection = math.MaxUint32

// Validate checks that m can be written and reads back the same: at least one
// VertexArray, one positive VertexSize shared by all of them, whole vertices,
// links only to IndexArrays listed in m.IndexArrays, indices below the
// vertex count of every VertexArray using them, 1 to MaxBones bones when
// Bones is not nil, bone names a string section can hold, Frames only with Bones and with valid BoneIDs, and every
// section within 4 GiB - 1 bytes. Errors match ErrInvalid.
func (m *Model) Validate() error {
	if len(m.VertexArrays) == 0 {
		return invalidf("no VertexArray (one is required)")
	}
	listed := make(map[*IndexArray]int, len(m.IndexArrays))
	for j, ia := range m.IndexArrays {
		if ia == nil {
			return invalidf("IndexArray %d is nil", j)
		}
		if _, dup := listed[ia]; dup {
			return invalidf("IndexArray %d is listed twice", j)
		}
		if uint64(len(ia.Indices))*4+IndexArrayHeaderSize > maxSection {
			return invalidf("IndexArray %d has %d indices, more than a section holds", j, len(ia.Indices))
		}
		listed[ia] = j
	}
	size := 0
	for i, va := range m.VertexArrays {
		if va == nil {
			return invalidf("VertexArray %d is nil", i)
		}
		if va.VertexSize <= 0 {
			return invalidf("VertexArray %d: VertexSize %d, want a positive size", i, va.VertexSize)
		}
		if i == 0 {
			size = va.VertexSize
		} else if va.VertexSize != size {
			return invalidf("VertexArray %d: VertexSize %d, VertexArray 0 has %d (one vertex format per model)", i, va.VertexSize, size)
		}
		if len(va.Data)%size != 0 {
			return invalidf("VertexArray %d: %d bytes is not a whole number of %d-byte vertices", i, len(va.Data), size)
		}
		if uint64(len(va.Data))+VertexArrayHeaderSize > maxSection {
			return invalidf("VertexArray %d: %d bytes of vertices, more than a section holds", i, len(va.Data))
		}
		if va.Indices == nil {
			continue
		}
		j, ok := listed[va.Indices]
		if !ok {
			return invalidf("VertexArray %d links to an IndexArray missing from Model.IndexArrays", i)
		}
		if k, v, bad := firstIndexAbove(va.Indices.Indices, va.VertexCount()); bad {
			return invalidf("VertexArray %d: index %d of IndexArray %d is %d, beyond its %d vertices", i, k, j, v, va.VertexCount())
		}
	}
	if m.Bones != nil && (len(m.Bones) < 1 || len(m.Bones) > MaxBones) {
		return invalidf("%d bones, want 1 to %d", len(m.Bones), MaxBones)
	}
	for k, b := range m.Bones {
		if !utf8.ValidString(b.Name) || strings.IndexByte(b.Name, 0) >= 0 {
			return invalidf("bone %d name %q is not valid UTF-8 without NUL bytes", k, b.Name)
		}
	}
	if m.Frames != nil && m.Bones == nil {
		return invalidf("a FrameArray needs a BoneArray")
	}
	if uint64(len(m.Frames))*BoneTransformSize > maxSection {
		return invalidf("%d bone transforms, more than a section holds", len(m.Frames))
	}
	for k, f := range m.Frames {
		if f.BoneID >= uint32(len(m.Bones)) {
			return invalidf("bone transform %d names bone %d of %d", k, f.BoneID, len(m.Bones))
		}
	}
	if uint64(len(m.Animation)) > maxSection {
		return invalidf("AnimationArray of %d bytes, more than a section holds", len(m.Animation))
	}
	return nil
}

// firstIndexAbove returns the position and value of the first index not
// below n.
func firstIndexAbove(idx []uint32, n int) (int, uint32, bool) {
	for k, v := range idx {
		if uint64(v) >= uint64(n) {
			return k, v, true
		}
	}
	return 0, 0, false
}
