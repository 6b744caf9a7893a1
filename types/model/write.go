package model

import (
	"io"
	"math"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// Write stores m in w, after validating it (errors match ErrInvalid): it
// sets the container's Type to 'M' and its TypeExt, then adds, each stored
// as o asks, the VertexArrays, the IndexArrays, the BoneArray, the
// FrameArray, the AnimationArray and, when there are bones, a Strings
// section with their names, in that order. The IndexArray links are written
// 1-based from the sections' positions in w (sections already in w count).
// The caller closes w.
func Write(w *bpx.Writer, m *Model, o bpx.SectionOptions) error {
	if err := m.Validate(); err != nil {
		return err
	}
	var names bpxstrings.Builder
	for k, b := range m.Bones {
		if _, err := names.Add(b.Name); err != nil {
			return invalidf("bone %d name: %v", k, err)
		}
	}
	w.SetType(bpx.TypeModel)
	w.SetTypeExt(m.TypeExt.Marshal())
	firstIndexArray := w.SectionCount() + len(m.VertexArrays)
	linkOf := make(map[*IndexArray]uint32, len(m.IndexArrays))
	for j, ia := range m.IndexArrays {
		linkOf[ia] = uint32(firstIndexArray+j) + 1
	}
	var buf []byte
	for _, va := range m.VertexArrays {
		buf = le.AppendUint64(buf[:0], va.MaterialHash)
		buf = le.AppendUint32(buf, uint32(va.VertexCount()))
		buf = le.AppendUint32(buf, linkOf[va.Indices]) // 0 for nil
		buf = append(buf, make([]byte, 8)...)          // Reserved, padding
		if err := w.WriteSection(SectionVertexArray, o, buf, va.Data); err != nil {
			return err
		}
	}
	for _, ia := range m.IndexArrays {
		buf = le.AppendUint32(buf[:0], uint32(len(ia.Indices)))
		for _, v := range ia.Indices {
			buf = le.AppendUint32(buf, v)
		}
		if err := w.WriteSection(SectionIndexArray, o, buf); err != nil {
			return err
		}
	}
	if m.Bones != nil {
		buf = le.AppendUint16(buf[:0], uint16(len(m.Bones)))
		for _, b := range m.Bones {
			buf = appendFloats(buf, b.Head[:])
			buf = appendFloats(buf, b.Tail[:])
			off, _ := names.Add(b.Name) // present: added above
			buf = le.AppendUint32(buf, off)
		}
		if err := w.WriteSection(SectionBoneArray, o, buf); err != nil {
			return err
		}
	}
	if m.Frames != nil {
		buf = buf[:0]
		for _, f := range m.Frames {
			buf = appendFloats(buf, f.Rotation[:])
			buf = appendFloats(buf, f.Position[:])
			buf = appendFloats(buf, f.Scale[:])
			buf = le.AppendUint32(buf, f.BoneID)
		}
		if err := w.WriteSection(SectionFrameArray, o, buf); err != nil {
			return err
		}
	}
	if m.Animation != nil {
		if err := w.WriteSection(SectionAnimationArray, o, m.Animation); err != nil {
			return err
		}
	}
	if m.Bones != nil {
		return w.WriteSection(SectionStrings, o, names.Bytes())
	}
	return nil
}

// Encode writes m to out as a complete BPX container (see Write). Nothing
// is written when m does not validate.
func Encode(out io.Writer, m *Model, o bpx.SectionOptions) error {
	if err := m.Validate(); err != nil {
		return err
	}
	w := bpx.NewWriter(out)
	if err := Write(w, m, o); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// appendFloats appends vals as little-endian float32s.
func appendFloats(b []byte, vals []float32) []byte {
	for _, v := range vals {
		b = le.AppendUint32(b, math.Float32bits(v))
	}
	return b
}
