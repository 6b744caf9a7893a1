package bo3d

import (
	"runtime"
	"testing"
)

// TestDecodeMemoryBound checks the documented bound: the decoded File takes
// at most 3 bytes of memory per input byte, on the inputs that maximise the
// ratio (the smallest possible entities).
func TestDecodeMemoryBound(t *testing.T) {
	const n = 4000
	tiny := map[string]*File{
		"pivots":          {Version: Version, FloatBits: 32},
		"one-vertex mesh": {Version: Version, FloatBits: 16},
	}
	for i := 0; i < n; i++ {
		tiny["pivots"].Entities = append(tiny["pivots"].Entities, Entity{Parent: -1})
		tiny["one-vertex mesh"].Entities = append(tiny["one-vertex mesh"].Entities,
			Entity{Parent: -1, Mesh: &Mesh{Vertices: make([]Vertex, 1), Colors: make([]RGB, 1), Triangles: make([]Triangle, 1), Bones: make([]Bone, 1)}})
	}
	for name, f := range tiny {
		b := mustEncode(f)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		g, err := Decode(b)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(b))
		t.Logf("%s: %d input bytes, %.2f bytes allocated per input byte", name, len(b), ratio)
		if ratio > 3 {
			t.Errorf("%s: %.2f bytes allocated per input byte, documented bound is 3", name, ratio)
		}
		runtime.KeepAlive(g)
	}
}
