package model

// Section types of a model (spec rev 2 §12.1).
const (
	SectionVertexArray    = 2
	SectionIndexArray     = 3
	SectionBoneArray      = 4
	SectionFrameArray     = 5
	SectionAnimationArray = 6
	SectionStrings        = 0xFF
)

// Sizes of the fixed structures, in bytes.
const (
	VertexArrayHeaderSize = 24 // 20 bytes of fields + 4 of C tail padding
	IndexArrayHeaderSize  = 4
	BoneArrayHeaderSize   = 2
	BoneSize              = 28
	BoneTransformSize     = 44
)

// MaxBones is the largest bone count of a BoneArray (§12.5.1); the smallest
// is 1.
const MaxBones = 1024

// Model is a decoded BPX model. Slices hold the sections in table order; a
// nil Bones, Frames or Animation means the section is absent.
type Model struct {
	TypeExt
	// VertexArrays are the VertexArray sections; at least one is required.
	VertexArrays []*VertexArray
	// IndexArrays are the IndexArray sections, whether a VertexArray links
	// to them or not. Every IndexArray a VertexArray links to must be here.
	IndexArrays []*IndexArray
	// Bones is the BoneArray (1 to MaxBones bones), nil for none.
	Bones []Bone
	// Frames is the FrameArray, nil for none. It needs Bones.
	Frames []BoneTransform
	// Animation is the AnimationArray's raw content, nil for none.
	Animation []byte
}

// VertexArray is one VertexArray section: a run of VertexCount vertices of
// VertexSize bytes each, whose structure is given by the vertex format asset.
type VertexArray struct {
	// MaterialHash is the §7 hash of the default material's virtual path.
	MaterialHash uint64
	// VertexSize is the size of one vertex in bytes, from the vertex format
	// (not stored in the file).
	VertexSize int
	// Data holds the vertices, VertexCount() × VertexSize bytes.
	Data []byte
	// Indices is the IndexArray to draw the vertices with, or nil.
	Indices *IndexArray
}

// VertexCount returns the number of vertices, len(Data) / VertexSize (0 when
// VertexSize is not positive).
func (v *VertexArray) VertexCount() int {
	if v.VertexSize <= 0 {
		return 0
	}
	return len(v.Data) / v.VertexSize
}

// Vertex returns the bytes of vertex i, sharing Data. It panics if i is out
// of range, like a slice index.
func (v *VertexArray) Vertex(i int) []byte {
	return v.Data[i*v.VertexSize : (i+1)*v.VertexSize : (i+1)*v.VertexSize]
}

// IndexArray is one IndexArray section: vertex indices into the VertexArrays
// that link to it.
type IndexArray struct {
	Indices []uint32
}

// Bone is one bone of the BoneArray.
type Bone struct {
	Head [3]float32 // initial position of the head
	Tail [3]float32 // initial position of the tail
	Name string     // stored in the Strings section
}

// BoneTransform is one entry of the FrameArray: the transform of one bone in
// one frame.
type BoneTransform struct {
	Rotation [4]float32 // quaternion
	Position [3]float32
	Scale    [3]float32
	BoneID   uint32 // index in Model.Bones
}
