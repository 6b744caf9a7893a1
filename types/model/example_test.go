package model_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
)

// A triangle mesh: three position-normal-UV vertices drawn through an
// IndexArray, written to a BPX file and read back.
func Example() {
	indices := &model.IndexArray{Indices: []uint32{0, 1, 2}}
	m := &model.Model{
		TypeExt: model.TypeExt{VertexFormatHash: sd.Hash("formats/pnu.vf")},
		VertexArrays: []*model.VertexArray{{
			MaterialHash: sd.Hash("materials/default.mat"),
			VertexSize:   model.PNUSize,
			Data: model.Float32Bytes(
				0, 0, 0 /**/, 0, 0, 1 /**/, 0, 0,
				1, 0, 0 /**/, 0, 0, 1 /**/, 1, 0,
				0, 1, 0 /**/, 0, 0, 1 /**/, 0, 1,
			),
			Indices: indices,
		}},
		IndexArrays: []*model.IndexArray{indices},
	}
	var file bytes.Buffer
	if err := model.Encode(&file, m, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}); err != nil {
		log.Fatal(err)
	}

	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.DescribeTypeExt(r.Header.TypeExt))
	back, err := model.Read(r, model.PNUSize) // the size comes from the vertex format asset
	if err != nil {
		log.Fatal(err)
	}
	va := back.VertexArrays[0]
	pos, err := va.Attribute(model.PNUPosition, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, i := range va.Indices.Indices {
		p := pos.At(int(i))
		fmt.Println(i, p[:3])
	}
	// Output:
	// model, vertex format hash 0xff17428c483c14ad
	// 0 [0 0 0]
	// 1 [1 0 0]
	// 2 [0 1 0]
}
