package model

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/gobpx/bpx"
)

// sec is one raw section for container.
type sec struct {
	typ  uint8
	data []byte
}

// container writes a container of the given type and TypeExt holding the
// raw sections, bypassing this package.
func container(t testing.TB, typ uint8, ext [16]byte, o bpx.SectionOptions, secs ...sec) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf, bpx.WithType(typ), bpx.WithTypeExt(ext))
	for _, s := range secs {
		sw, err := w.CreateSection(s.typ, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sw.Write(s.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

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

// raw assembles little-endian bytes from uint8, uint16, uint32, uint64,
// float32 and []byte values.
func raw(vals ...any) []byte {
	var b []byte
	for _, v := range vals {
		switch v := v.(type) {
		case uint8:
			b = append(b, v)
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, v)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		case []byte:
			b = append(b, v...)
		default:
			panic("raw: unsupported value")
		}
	}
	return b
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
