package model

import (
	"errors"
	"testing"
)

func TestAttribute(t *testing.T) {
	// Two PNU vertices.
	va := &VertexArray{VertexSize: PNUSize, Data: Float32Bytes(
		1, 2, 3, 0, 0, 1, 0.25, 0.75,
		4, 5, 6, 0, 1, 0, 0.5, 1,
	)}
	pos, err := va.Attribute(PNUPosition, 3)
	if err != nil {
		t.Fatal(err)
	}
	if pos.Len() != 2 || pos.Components() != 3 || pos.At(1) != [4]float32{4, 5, 6, 0} {
		t.Errorf("position: len %d, At(1) %v", pos.Len(), pos.At(1))
	}
	uv, err := va.Attribute(PNUUV, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := uv.Append(nil); len(got) != 4 || got[0] != 0.25 || got[3] != 1 {
		t.Errorf("uv = %v", got)
	}
	nrm, _ := va.Attribute(PNUNormal, 3)
	if nrm.At(0) != [4]float32{0, 0, 1, 0} {
		t.Errorf("normal = %v", nrm.At(0))
	}
	// The view reads in place.
	copy(va.Data[0:4], Float32Bytes(9))
	if pos.At(0)[0] != 9 {
		t.Error("Attribute copied the data")
	}
	for _, c := range [][2]int{{PNUUV, 3}, {-4, 1}, {0, 0}, {0, 5}, {29, 1}} {
		if _, err := va.Attribute(c[0], c[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Attribute(%d, %d): %v", c[0], c[1], err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("At(2) did not panic")
		}
	}()
	pos.At(2)
}

func TestVertex(t *testing.T) {
	va := &VertexArray{VertexSize: 2, Data: []byte{1, 2, 3, 4}}
	if v := va.Vertex(1); string(v) != "\x03\x04" || cap(v) != 2 || va.VertexCount() != 2 {
		t.Errorf("Vertex(1) = %v", v)
	}
	if (&VertexArray{}).VertexCount() != 0 {
		t.Error("VertexCount with size 0")
	}
}
