package bo3d

// Format constants.
const (
	// Magic is the int at offset 0 of every BO3D file: the bytes "BO3D".
	Magic = 0x44334F42
	// Version is the format version this package writes (major 1, minor 0).
	// Decode accepts any version up to and including it, as bOGL does.
	Version = 100

	HeaderSize      = 20 // bytes in the file header
	PivotHeaderSize = 64 // bytes in an entity header without vertices
	MeshHeaderSize  = 92 // bytes in an entity header with vertices

	KeyframeSize = 44 // bytes in one keyframe element
	ColorSize    = 3  // bytes in one vertex colour element
	TriangleSize = 6  // bytes in one triangle element
	BoneSize     = 12 // bytes in one bone element
)

// FX flags of a mesh (bOGL.bb).
const (
	FXFullBright = 1 << iota
	FXFlatShaded
	FXNoFog
	FXAddBlend
	FXMulBlend
	FXNoCull
)

// File is a decoded BO3D file: a flat list of entities, the first of which
// is the root of the scene.
type File struct {
	// Version is the format version; files this package writes use
	// [Version]. Encode rejects values above it.
	Version int32
	// FloatBits is the width of the vertex floats on disk: 16 (IEEE
	// binary16) or 32 (IEEE binary32).
	FloatBits int
	// Entities in file order. A parent always precedes its children.
	Entities []Entity
}

// Entity is a pivot (Mesh == nil) or a mesh.
type Entity struct {
	// Parent is the index of the parent entity in File.Entities, or -1.
	// It is always smaller than the entity's own index.
	Parent   int32
	Position [3]float32
	Scale    [3]float32
	// Rotation is a quaternion in the order w, x, y, z.
	Rotation [4]float32
	// AnimLength is the length of the animation in frames (0 for none).
	AnimLength int32
	// Keyframes, sorted by frame in files written by bOGL's converter.
	Keyframes []Keyframe
	// Name is the raw name bytes (no terminator, encoding unspecified).
	Name string
	// Mesh holds the mesh data, or is nil for a pivot.
	Mesh *Mesh
}

// Mesh is the part of an entity that only meshes have. A mesh has at least
// one vertex; an entity without vertices is a pivot.
type Mesh struct {
	Vertices []Vertex
	// Colors are per-vertex colours. bOGL uses them only when there are as
	// many as vertices; other counts are kept as they are.
	Colors    []RGB
	Triangles []Triangle
	// Texture is the raw texture name bytes, "" for none.
	Texture string
	// Color is the entity colour as the 4 raw bytes on disk. bOGL's
	// converter writes R, G, B, 0 (the spec says B, G, R, A); the loader
	// ignores it.
	Color [4]byte
	Alpha float32
	// FX is the bitwise OR of the FX* flags.
	FX    uint32
	Bones []Bone
}

// Vertex is one vertex in the GL_T2F_N3F_V3F layout: texture coordinates,
// normal (not necessarily unit length) and position.
type Vertex struct {
	UV       [2]float32
	Normal   [3]float32
	Position [3]float32
}

// RGB is a vertex colour.
type RGB [3]uint8

// Triangle holds three unsigned vertex indices.
type Triangle [3]uint16

// Keyframe is the local transform of an entity at one frame.
type Keyframe struct {
	Frame    int32
	Position [3]float32
	Scale    [3]float32
	Rotation [4]float32 // w, x, y, z
}

// Bone makes entity Entity move the vertices First..Last (inclusive) of
// the mesh rigidly. A bone with First > Last affects no vertex (bOGL's
// converter writes such bones, e.g. 0..-1). In JSON its keys are
// camelCase, as the other BO3D keys.
type Bone struct {
	Entity int32 `json:"entity"`
	First  int32 `json:"first"`
	Last   int32 `json:"last"`
}

// IsPivot reports whether e is a pivot (has no mesh).
func (e *Entity) IsPivot() bool { return e.Mesh == nil }

// vertexSize returns the on-disk size of one vertex for bits-wide floats.
func vertexSize(bits int) int64 { return int64(bits) } // 8 floats × bits/8 bytes

// align4 rounds n up to a multiple of 4.
func align4(n int64) int64 { return (n + 3) &^ 3 }
