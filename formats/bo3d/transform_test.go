package bo3d

import (
	"math"
	"testing"
)

// TestSceneTransforms: the scene transform of an entity is its parent's
// times its own translate · rotate · scale; a bad parent counts as the
// root, as bOGL's loader has it.
func TestSceneTransforms(t *testing.T) {
	s := float32(math.Sqrt2 / 2)
	one, none := [3]float32{1, 1, 1}, [4]float32{1, 0, 0, 0}
	f := &File{Entities: []Entity{
		{Parent: -1, Position: [3]float32{1, 0, 0}, Scale: [3]float32{2, 2, 2}, Rotation: none},
		{Parent: 0, Position: [3]float32{0, 1, 0}, Scale: one, Rotation: [4]float32{s, 0, 0, s}}, // 90° about z
		{Parent: 7, Position: [3]float32{0, 0, 3}, Scale: one, Rotation: none},
		{Parent: 1, Position: [3]float32{1, 0, 0}, Scale: one, Rotation: none},
	}}
	want := [][3][4]float64{
		{{2, 0, 0, 1}, {0, 2, 0, 0}, {0, 0, 2, 0}},
		{{0, -2, 0, 1}, {2, 0, 0, 2}, {0, 0, 2, 0}},
		{{2, 0, 0, 1}, {0, 2, 0, 0}, {0, 0, 2, 6}},
		{{0, -2, 0, 1}, {2, 0, 0, 4}, {0, 0, 2, 0}}, // (1,0,0) of entity 1 is (1,4,0)
	}
	got := f.SceneTransforms()
	if len(got) != len(want) {
		t.Fatalf("%d transforms, want %d", len(got), len(want))
	}
	for i := range want {
		for r := range 3 {
			for c := range 4 {
				if math.Abs(got[i][r][c]-want[i][r][c]) > 1e-6 {
					t.Fatalf("entity %d: %v, want %v", i, got[i], want[i])
				}
			}
		}
	}
	if len((&File{}).SceneTransforms()) != 0 {
		t.Error("no entities: want no transforms")
	}
}
