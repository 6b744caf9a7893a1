package bo3d

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

const benchVertices = 65536

// benchFile is one mesh holding only vertices, so its bytes are almost all
// vertex bytes (20 + 92 + 4 bytes of header and name).
func benchFile(bits int) []byte {
	vs := make([]Vertex, benchVertices)
	for i := range vs {
		x := float32(i%1000) / 8
		vs[i] = Vertex{UV: [2]float32{x / 128, 1 - x/128}, Normal: [3]float32{0, 0.5, 1}, Position: [3]float32{x, -x, x / 2}}
	}
	return mustEncode(&File{Version: Version, FloatBits: bits, Entities: []Entity{
		{Parent: -1, Name: "mesh", Mesh: &Mesh{Vertices: vs}},
	}})
}

func benchDecode(b *testing.B, bits int) {
	data := benchFile(bits)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode32(b *testing.B) { benchDecode(b, 32) }
func BenchmarkDecode16(b *testing.B) { benchDecode(b, 16) }

// BenchmarkRead32 includes reading the file from an io.Reader.
func BenchmarkRead32(b *testing.B) {
	data := benchFile(32)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// The baselines read just the vertex bytes with io.ReadFull and decode them
// with binary.Read into a slice of structs mirroring the on-disk element.
type rawVertex32 struct {
	UV       [2]float32
	Normal   [3]float32
	Position [3]float32
}

type rawVertex16 struct{ F [8]uint16 } // no half → float conversion at all

func benchBaseline[T any](b *testing.B, bits int) {
	data := benchFile(bits)
	vbytes := data[HeaderSize+MeshHeaderSize+4:]
	if len(vbytes) != benchVertices*bits {
		b.Fatalf("vertex bytes: %d", len(vbytes))
	}
	b.SetBytes(int64(len(vbytes)))
	b.ReportAllocs()
	for b.Loop() {
		buf := make([]byte, len(vbytes))
		if _, err := io.ReadFull(bytes.NewReader(vbytes), buf); err != nil {
			b.Fatal(err)
		}
		out := make([]T, benchVertices)
		if err := binary.Read(bytes.NewReader(buf), binary.LittleEndian, out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBaselineBinaryRead32(b *testing.B) { benchBaseline[rawVertex32](b, 32) }
func BenchmarkBaselineBinaryRead16(b *testing.B) { benchBaseline[rawVertex16](b, 16) }
