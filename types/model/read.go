package model

import (
	"encoding/binary"
	"math"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
)

var le = binary.LittleEndian

// Read decodes the model of an opened container. vertexSize is the size in
// bytes of one vertex, as given by the vertex format asset that
// TypeExt.VertexFormatHash names; it must be positive (ErrInvalid).
//
// The main header's Type must be 'M'. Every VertexArray, IndexArray,
// BoneArray, FrameArray, AnimationArray and the Strings section are read
// and checked as the package documentation describes; sections of other
// types are ignored. VertexArray.Data shares the section's buffer.
func Read(r *bpx.Reader, vertexSize int) (*Model, error) {
	if vertexSize <= 0 {
		return nil, invalidf("VertexSize %d, want a positive size", vertexSize)
	}
	if r.Header.Type != bpx.TypeModel {
		return nil, formatErr(-1, 3, "type %q is not a model ('M')", r.Header.Type)
	}
	ext, err := ParseTypeExt(r.Header.TypeExt)
	if err != nil {
		return nil, err
	}
	for _, typ := range []uint8{SectionBoneArray, SectionFrameArray, SectionAnimationArray, SectionStrings} {
		if s := r.SectionsOfType(typ); len(s) > 1 {
			return nil, formatErr(-1, tableOffset(r, s[1].Index), "second section of type %d (section %d; the spec allows one)", typ, s[1].Index)
		}
	}
	m := &Model{TypeExt: ext}
	rd := reader{r: r, m: m, vertexSize: vertexSize, indexArrays: map[int]*IndexArray{}}
	if err := rd.read(); err != nil {
		return nil, err
	}
	return m, nil
}

// reader holds the state of one Read.
type reader struct {
	r           *bpx.Reader
	m           *Model
	vertexSize  int
	indexArrays map[int]*IndexArray // by section index
	links       []uint32            // raw IndexArray field of each VertexArray
	vaSections  []*bpx.Section
	bonesSec    *bpx.Section
}

// tableOffset returns the file offset of entry i of r's section table
// (i = len(r.Sections) for the end of the table). Version-0 draft files have
// a 32-byte header and 16-byte entries.
func tableOffset(r *bpx.Reader, i int) int64 {
	if r.Header.Version == 0 {
		return 32 + 16*int64(i)
	}
	return bpx.MainHeaderSize + bpx.SectionHeaderSize*int64(i)
}

func (rd *reader) read() error {
	for _, s := range rd.r.Sections {
		var err error
		switch s.Type {
		case SectionVertexArray:
			err = rd.vertexArray(s)
		case SectionIndexArray:
			err = rd.indexArray(s)
		case SectionBoneArray:
			err = rd.boneArray(s)
		case SectionFrameArray:
			err = rd.frameArray(s)
		case SectionAnimationArray:
			rd.m.Animation, err = s.Data()
		}
		if err != nil {
			return err
		}
	}
	if len(rd.m.VertexArrays) == 0 {
		return formatErr(-1, tableOffset(rd.r, 0), "no VertexArray section (type 2)")
	}
	if err := rd.resolveLinks(); err != nil {
		return err
	}
	if rd.m.Frames != nil {
		return rd.checkFrames()
	}
	return nil
}

func (rd *reader) vertexArray(s *bpx.Section) error {
	data, err := load(s, "VertexArray", VertexArrayHeaderSize)
	if err != nil {
		return err
	}
	count := le.Uint32(data[8:])
	if res := le.Uint32(data[16:]); res != 0 {
		return formatErr(s.Index, 16, "VertexArray Reserved is %#x, want 0", res)
	}
	if want := uint64(count) * uint64(rd.vertexSize); uint64(len(data)-VertexArrayHeaderSize) != want {
		return formatErr(s.Index, 8, "VertexCount %d × VertexSize %d is %d bytes, the section holds %d after its header",
			count, rd.vertexSize, want, len(data)-VertexArrayHeaderSize)
	}
	rd.m.VertexArrays = append(rd.m.VertexArrays, &VertexArray{
		MaterialHash: le.Uint64(data),
		VertexSize:   rd.vertexSize,
		Data:         data[VertexArrayHeaderSize:],
	})
	rd.links = append(rd.links, le.Uint32(data[12:]))
	rd.vaSections = append(rd.vaSections, s)
	return nil
}

func (rd *reader) indexArray(s *bpx.Section) error {
	data, err := load(s, "IndexArray", IndexArrayHeaderSize)
	if err != nil {
		return err
	}
	count := le.Uint32(data)
	if uint64(count)*4 != uint64(len(data)-IndexArrayHeaderSize) {
		return formatErr(s.Index, 0, "IndexCount %d needs %d bytes, the section holds %d after its header",
			count, uint64(count)*4, len(data)-IndexArrayHeaderSize)
	}
	ia := &IndexArray{Indices: make([]uint32, count)}
	for k := range ia.Indices {
		ia.Indices[k] = le.Uint32(data[IndexArrayHeaderSize+4*k:])
	}
	rd.m.IndexArrays = append(rd.m.IndexArrays, ia)
	rd.indexArrays[s.Index] = ia
	return nil
}

func (rd *reader) boneArray(s *bpx.Section) error {
	data, err := load(s, "BoneArray", BoneArrayHeaderSize)
	if err != nil {
		return err
	}
	count := int(le.Uint16(data))
	if count < 1 || count > MaxBones {
		return formatErr(s.Index, 0, "BoneCount %d, want 1 to %d", count, MaxBones)
	}
	if want := count * BoneSize; len(data)-BoneArrayHeaderSize != want {
		return formatErr(s.Index, 0, "BoneCount %d needs %d bytes, the section holds %d after its header", count, want, len(data)-BoneArrayHeaderSize)
	}
	var names *bpxstrings.Table
	if ss := rd.r.FindSection(SectionStrings); ss != nil {
		b, err := ss.Data()
		if err != nil {
			return err
		}
		names = bpxstrings.NewTable(b)
	}
	bones := make([]Bone, count)
	for k := range bones {
		off := BoneArrayHeaderSize + k*BoneSize
		b := &bones[k]
		readFloats(b.Head[:], data[off:])
		readFloats(b.Tail[:], data[off+12:])
		ptr := le.Uint32(data[off+24:])
		if names == nil {
			return formatErr(s.Index, int64(off+24), "bone %d has a name pointer but the model has no Strings section", k)
		}
		if b.Name, err = names.Get(ptr); err != nil {
			return &bpx.FormatError{Offset: int64(off + 24), Section: s.Index, What: "bone name", Err: err}
		}
	}
	rd.m.Bones = bones
	rd.bonesSec = s
	return nil
}

func (rd *reader) frameArray(s *bpx.Section) error {
	data, err := load(s, "FrameArray", 0)
	if err != nil {
		return err
	}
	if rest := len(data) % BoneTransformSize; rest != 0 {
		return formatErr(s.Index, int64(len(data)-rest), "FrameArray of %d bytes ends with %d bytes of a %d-byte bone transform", len(data), rest, BoneTransformSize)
	}
	frames := make([]BoneTransform, len(data)/BoneTransformSize)
	for k := range frames {
		p := data[k*BoneTransformSize:]
		f := &frames[k]
		readFloats(f.Rotation[:], p)
		readFloats(f.Position[:], p[16:])
		readFloats(f.Scale[:], p[28:])
		f.BoneID = le.Uint32(p[40:])
	}
	rd.m.Frames = frames
	return nil
}

// load reads section s, named name, and checks that it holds at least its
// header.
func load(s *bpx.Section, name string, header int) ([]byte, error) {
	data, err := s.Data()
	if err != nil {
		return nil, err
	}
	if len(data) < header {
		return nil, formatErr(s.Index, int64(len(data)), "%s of %d bytes, shorter than its %d-byte header", name, len(data), header)
	}
	return data, nil
}

// resolveLinks turns the VertexArrays' IndexArray fields into pointers and
// checks the indices against the vertex counts.
func (rd *reader) resolveLinks() error {
	for i, link := range rd.links {
		if link == 0 {
			continue
		}
		vs := rd.vaSections[i]
		target := int64(link) - 1
		if target >= int64(len(rd.r.Sections)) {
			return formatErr(vs.Index, 12, "IndexArray link %d names section %d, the file has %d sections", link, target, len(rd.r.Sections))
		}
		ia, ok := rd.indexArrays[int(target)]
		if !ok {
			return formatErr(vs.Index, 12, "IndexArray link %d names section %d of type %d, not an IndexArray", link, target, rd.r.Sections[target].Type)
		}
		va := rd.m.VertexArrays[i]
		if k, v, bad := firstIndexAbove(ia.Indices, va.VertexCount()); bad {
			return formatErr(int(target), int64(IndexArrayHeaderSize+4*k), "index %d is %d, beyond the %d vertices of VertexArray section %d",
				k, v, va.VertexCount(), vs.Index)
		}
		va.Indices = ia
	}
	return nil
}

func (rd *reader) checkFrames() error {
	fs := rd.r.FindSection(SectionFrameArray)
	if rd.m.Bones == nil {
		return formatErr(fs.Index, 0, "FrameArray without a BoneArray")
	}
	for k, f := range rd.m.Frames {
		if f.BoneID >= uint32(len(rd.m.Bones)) {
			return formatErr(fs.Index, int64(k*BoneTransformSize+40), "bone transform %d names bone %d, BoneArray section %d has %d",
				k, f.BoneID, rd.bonesSec.Index, len(rd.m.Bones))
		}
	}
	return nil
}

// readFloats fills dst with little-endian float32s from p.
func readFloats(dst []float32, p []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(le.Uint32(p[4*i:]))
	}
}
