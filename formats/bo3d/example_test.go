package bo3d_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"reflect"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/bo3d"
)

// Build a scene of a pivot and a textured triangle, write it with 16-bit
// vertex floats and read it back.
func Example() {
	f := &bo3d.File{
		Version:   bo3d.Version,
		FloatBits: 16,
		Entities: []bo3d.Entity{
			{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}},
			{Parent: 0, Name: "tri", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0},
				Mesh: &bo3d.Mesh{
					Vertices: []bo3d.Vertex{
						{UV: [2]float32{0, 0}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{0, 0, 0}},
						{UV: [2]float32{1, 0}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{1, 0, 0}},
						{UV: [2]float32{0, 1}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{0, 0.1, 0}},
					},
					Triangles: []bo3d.Triangle{{0, 1, 2}},
					Texture:   "tri.png",
					Alpha:     1,
				}},
		},
	}
	b, err := f.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	g, err := bo3d.Decode(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes, %d entities\n", len(b), len(g.Entities))
	for i, e := range g.Entities {
		if e.IsPivot() {
			fmt.Printf("%d %s: pivot, parent %d\n", i, e.Name, e.Parent)
			continue
		}
		m := e.Mesh
		fmt.Printf("%d %s: mesh, parent %d, %d vertices, %d triangles, texture %q\n",
			i, e.Name, e.Parent, len(m.Vertices), len(m.Triangles), m.Texture)
		// 0.1 is not exact in binary16: it was rounded to the nearest half.
		fmt.Println("y of vertex 2:", m.Vertices[2].Position[1])
	}
	// Output:
	// 248 bytes, 2 entities
	// 0 root: pivot, parent -1
	// 1 tri: mesh, parent 0, 3 vertices, 1 triangles, texture "tri.png"
	// y of vertex 2: 0.099975586
}

// Decoding errors name the entity and the byte offset.
func ExampleDecode_error() {
	f := &bo3d.File{Version: bo3d.Version, FloatBits: 32, Entities: []bo3d.Entity{
		{Parent: -1, Name: "root"},
		{Parent: 0, Name: "child"},
	}}
	b, _ := f.MarshalBinary()
	b[20+68+4] = 1 // entity 1 becomes its own parent
	_, err := bo3d.Decode(b)
	fmt.Println(err)
	fmt.Println(errors.Is(err, bo3d.ErrFormat))
	// Output:
	// bo3d: entity 1: parent index 1 out of range (want -1 or 0..0) at offset 92
	// true
}

// Convert a BO3D scene to a BPX model file and back.
func ExampleWriteModel() {
	f := &bo3d.File{Version: bo3d.Version, FloatBits: 32, Entities: []bo3d.Entity{
		{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}, AnimLength: 10,
			Keyframes: []bo3d.Keyframe{
				{Frame: 0, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}},
				{Frame: 10, Position: [3]float32{0, 0, 5}, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0}},
			}},
		{Parent: 0, Name: "tri", Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{1, 0, 0, 0},
			Mesh: &bo3d.Mesh{
				Vertices:  []bo3d.Vertex{{Position: [3]float32{0, 0, 0}}, {Position: [3]float32{1, 0, 0}}, {Position: [3]float32{0, 1, 0}}},
				Triangles: []bo3d.Triangle{{0, 1, 2}},
				Texture:   "tri.png",
				Alpha:     1,
			}},
	}}
	var buf bytes.Buffer
	if err := bo3d.WriteModel(&buf, f, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}); err != nil {
		log.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("type %c, vertex format hash %#x\n", r.Header.Type, binary.LittleEndian.Uint64(r.Header.TypeExt[:]))
	for _, s := range r.Sections {
		fmt.Printf("section %d: type %d\n", s.Index, s.Type)
	}
	g, err := bo3d.ReadModel(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same file:", reflect.DeepEqual(f, g))
	// Output:
	// type M, vertex format hash 0x57447a5cfc516f2c
	// section 0: type 2
	// section 1: type 3
	// section 2: type 4
	// section 3: type 5
	// section 4: type 6
	// section 5: type 255
	// section 6: type 254
	// same file: true
}
