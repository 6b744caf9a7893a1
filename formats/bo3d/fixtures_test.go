package bo3d

// Fixtures built in code. All float values are exactly representable in
// binary16, so every fixture survives a 16-bit round trip unchanged.

var identity = [4]float32{1, 0, 0, 0} // w, x, y, z

// pivotTree is a root pivot with two children, one of which has a child:
//
//	0 root
//	├─ 1 arm
//	│  └─ 2 hand
//	└─ 3 leg
func pivotTree(bits int) *File {
	return &File{Version: Version, FloatBits: bits, Entities: []Entity{
		{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: identity},
		{Parent: 0, Name: "arm", Position: [3]float32{1, 2, 3}, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{0.5, 0.5, 0.5, 0.5}},
		{Parent: 1, Name: "hand", Position: [3]float32{0, -1.5, 0}, Scale: [3]float32{2, 2, 2}, Rotation: identity},
		{Parent: 0, Name: "leg", Position: [3]float32{0, 0, -4}, Scale: [3]float32{1, 1, 1}, Rotation: identity},
	}}
}

// quad is a textured, vertex-coloured square of two triangles.
func quad() *Mesh {
	return &Mesh{
		Vertices: []Vertex{
			{UV: [2]float32{0, 0}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{-1, -1, 0}},
			{UV: [2]float32{1, 0}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{1, -1, 0}},
			{UV: [2]float32{1, 1}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{1, 1, 0}},
			{UV: [2]float32{0, 1}, Normal: [3]float32{0, 0, 1}, Position: [3]float32{-1, 1, 0}},
		},
		Colors:    []RGB{{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}},
		Triangles: []Triangle{{2, 1, 0}, {3, 2, 0}},
		Texture:   "crate.png",
		Color:     [4]byte{0xff, 0x80, 0x00, 0x00},
		Alpha:     0.75,
		FX:        FXFullBright | FXNoCull,
	}
}

// texturedMesh is a single textured mesh entity named "crate".
func texturedMesh(bits int) *File {
	return &File{Version: Version, FloatBits: bits, Entities: []Entity{
		{Parent: -1, Name: "crate", Scale: [3]float32{1, 1, 1}, Rotation: identity, Mesh: quad()},
	}}
}

// bonedMesh is an animated skeleton of two bone pivots moving a mesh:
//
//	0 root (pivot, animation length 30)
//	├─ 1 body (mesh, 6 vertices, bones: 2 → 0..3, 3 → 4..5, 2 → 0..-1 empty)
//	├─ 2 hip  (pivot, 3 keyframes)
//	└─ 3 knee (pivot, 2 keyframes)
func bonedMesh(bits int) *File {
	m := quad()
	m.Texture = ""
	m.Colors = nil
	m.Vertices = append(m.Vertices,
		Vertex{UV: [2]float32{0.25, 0.5}, Normal: [3]float32{0, 1, 0}, Position: [3]float32{0, 2, 0.5}},
		Vertex{UV: [2]float32{0.75, 0.5}, Normal: [3]float32{0, 1, 0}, Position: [3]float32{0, 3, 0.5}})
	m.Triangles = append(m.Triangles, Triangle{4, 5, 3})
	m.Bones = []Bone{{Entity: 2, First: 0, Last: 3}, {Entity: 3, First: 4, Last: 5}, {Entity: 2, First: 0, Last: -1}}
	return &File{Version: Version, FloatBits: bits, Entities: []Entity{
		{Parent: -1, Name: "root", Scale: [3]float32{1, 1, 1}, Rotation: identity, AnimLength: 30},
		{Parent: 0, Name: "body", Scale: [3]float32{1, 1, 1}, Rotation: identity, Mesh: m},
		{Parent: 0, Name: "hip", Position: [3]float32{0, 1, 0}, Scale: [3]float32{1, 1, 1}, Rotation: identity,
			Keyframes: []Keyframe{
				{Frame: 0, Position: [3]float32{0, 1, 0}, Scale: [3]float32{1, 1, 1}, Rotation: identity},
				{Frame: 15, Position: [3]float32{0, 1.5, 0}, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{0.5, 0.5, 0.5, 0.5}},
				{Frame: 30, Position: [3]float32{0, 1, 0}, Scale: [3]float32{1, 1, 1}, Rotation: identity},
			}},
		{Parent: 2, Name: "knee", Position: [3]float32{0, 2, 0}, Scale: [3]float32{1, 1, 1}, Rotation: identity,
			Keyframes: []Keyframe{
				{Frame: 0, Position: [3]float32{0, 2, 0}, Scale: [3]float32{1, 1, 1}, Rotation: identity},
				{Frame: 30, Position: [3]float32{0, 2, 0}, Scale: [3]float32{1, 1, 1}, Rotation: [4]float32{0, 1, 0, 0}},
			}},
	}}
}

// fixtures lists every fixture at both float widths.
func fixtures() map[string]*File {
	out := map[string]*File{}
	for _, bits := range []int{16, 32} {
		for name, mk := range map[string]func(int) *File{"pivots": pivotTree, "textured": texturedMesh, "boned": bonedMesh} {
			out[name+map[int]string{16: "16", 32: "32"}[bits]] = mk(bits)
		}
	}
	return out
}

// mustEncode encodes f or panics: fixtures are valid by construction.
func mustEncode(f *File) []byte {
	b, err := f.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}
