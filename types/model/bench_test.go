package model

import (
	"bytes"
	"testing"

	"github.com/gobpx/bpx"
)

// BenchmarkRead reads a 1 MiB indexed mesh; the baseline reads the same
// sections with Section.Data alone, in the same run.

const benchVertices = 1 << 15 // 32 KiB vertices × 32 bytes = 1 MiB

func benchFile(b *testing.B) []byte {
	idx := make([]uint32, benchVertices)
	for i := range idx {
		idx[i] = uint32(i)
	}
	ia := &IndexArray{Indices: idx}
	m := &Model{VertexArrays: []*VertexArray{{VertexSize: PNUSize, Data: make([]byte, benchVertices*PNUSize), Indices: ia}}, IndexArrays: []*IndexArray{ia}}
	return encode(b, m, bpx.SectionOptions{})
}

func BenchmarkReadBaselineSectionData(b *testing.B) {
	file := benchFile(b)
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		r, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range r.Sections {
			if _, err := s.Data(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkRead(b *testing.B) {
	file := benchFile(b)
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := decode(file, PNUSize); err != nil {
			b.Fatal(err)
		}
	}
}
