package model

import (
	"bytes"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// sec is one raw section for container.
type sec struct {
	typ  uint8
	data []byte
}

// container writes a container holding the raw sections, bypassing this
// package.
func container(t testing.TB, typ uint8, ext [16]byte, o bpx.SectionOptions, secs ...sec) []byte {
	t.Helper()
	return testbpx.Container(t, typ, ext, o, toSections(secs)...)
}

func toSections(secs []sec) []testbpx.Section {
	out := make([]testbpx.Section, len(secs))
	for i, s := range secs {
		out[i] = testbpx.Section{Type: s.typ, Data: s.data}
	}
	return out
}

// raw assembles little-endian bytes.
var raw = testbpx.LE

func encode(t testing.TB, m *Model, o bpx.SectionOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, m, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decode(b []byte, vertexSize int) (*Model, error) {
	r, err := bpx.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	return Read(r, vertexSize)
}

// Hand-made sections of the golden model: a triangle of 12-byte vertices
// (float32 x, y, z), indexed, with one bone and one transform.
var (
	goldenExt = [16]byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}
	goldenVA  = raw(uint64(0xABCD), uint32(3), uint32(2), uint32(0), uint32(0), // header, link to section 1
		float32(0), float32(0), float32(0), float32(1), float32(0), float32(0), float32(0), float32(1), float32(0))
	goldenIA    = raw(uint32(3), uint32(0), uint32(1), uint32(2))
	goldenBones = raw(uint16(1), float32(0), float32(0), float32(0), float32(0), float32(0), float32(1), uint32(0))
	goldenFrame = raw(float32(0), float32(0), float32(0), float32(1), float32(1), float32(2), float32(3),
		float32(1), float32(1), float32(1), uint32(0))
	goldenAnim    = []byte("anim")
	goldenStrings = []byte("root\x00")
)

func goldenSections() []sec {
	return []sec{{2, goldenVA}, {3, goldenIA}, {4, goldenBones}, {5, goldenFrame}, {6, goldenAnim}, {0xFF, goldenStrings}}
}

// goldenModel is what the golden sections decode to.
func goldenModel() *Model {
	ia := &IndexArray{Indices: []uint32{0, 1, 2}}
	return &Model{
		TypeExt: TypeExt{VertexFormatHash: 0x8877665544332211},
		VertexArrays: []*VertexArray{{
			MaterialHash: 0xABCD, VertexSize: 12, Indices: ia,
			Data: Float32Bytes(0, 0, 0, 1, 0, 0, 0, 1, 0),
		}},
		IndexArrays: []*IndexArray{ia},
		Bones:       []Bone{{Tail: [3]float32{0, 0, 1}, Name: "root"}},
		Frames:      []BoneTransform{{Rotation: [4]float32{0, 0, 0, 1}, Position: [3]float32{1, 2, 3}, Scale: [3]float32{1, 1, 1}}},
		Animation:   goldenAnim,
	}
}
