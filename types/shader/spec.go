package shader

import (
	"encoding/binary"
	"fmt"
)

// Section types of the spec's layout (rev 2 §13) that differ from the SDK 4
// layout; SectionShader and SectionStrings are shared.
const (
	SectionAssembly          = 2
	SectionBindings          = 3
	SectionMaterialConstants = 4
)

// Sizes of the spec layout's structures, in bytes.
const (
	AssemblySize = 36
	BindingSize  = 8
	ConstantSize = 8
)

// SpecPack is a shader package in the layout of spec rev 2 §13.
type SpecPack struct {
	VertexFormatHash64 uint64 // §7 hash of the vertex format's virtual path
	VertexFormatHash32 uint32 // 32-bit hash of the same path
	Compatibility      Compatibility
	// Shaders are the Shader sections, in table order.
	Shaders []*SpecShader
	// BindingSets are the Bindings sections, in table order.
	BindingSets []*BindingSet
	// Assemblies are the Assembly sections; at least one is required.
	Assemblies []*Assembly
	// Constants are the MaterialConstants (at most 255: the TypeExt's
	// NumConstants is one byte).
	Constants []Constant
}

// SpecShader is one Shader section of a SpecPack: shader code for one
// rendering API, whose format the spec leaves to that API.
type SpecShader struct {
	Data []byte
}

// Assembly is one Assembly section: which shaders and bindings make a
// program for one driver. A nil shader or binding set means none.
type Assembly struct {
	Driver     Driver
	MinVersion uint32 // encoding defined by the driver
	Vertex     *SpecShader
	Domain     *SpecShader
	Hull       *SpecShader
	Geometry   *SpecShader
	Pixel      *SpecShader
	Bindings   *BindingSet
}

// BindingSet is one Bindings section.
type BindingSet struct {
	Bindings []Binding
}

// Binding is one binding of a BindingSet.
type Binding struct {
	Stages   StageFlags
	Type     BindingType
	Register uint8
}

// Constant is one MaterialConstants entry.
type Constant struct {
	Name string // stored in the Strings section
	Type ConstantType
}

// Compatibility are the spec's CompatibilityFlags (TypeExt byte 12).
type Compatibility uint8

// Compatibility flags.
const (
	CompatDirectX Compatibility = 0x1
	CompatOpenGL  Compatibility = 0x2
	CompatVulkan  Compatibility = 0x4
	CompatMetal   Compatibility = 0x8
)

// String returns the flag names joined by "|", "0" for none.
func (c Compatibility) String() string {
	return flagString(uint64(c), []string{"DirectX", "OpenGL", "Vulkan", "Metal"})
}

// Driver is the rendering API of an Assembly.
type Driver uint8

// Drivers.
const (
	DriverOpenGL  Driver = 0
	DriverDirectX Driver = 1
	DriverVulkan  Driver = 2
	DriverMetal   Driver = 3
)

// String returns the driver's name or "Driver(N)".
func (d Driver) String() string {
	if names := [...]string{"OpenGL", "DirectX", "Vulkan", "Metal"}; int(d) < len(names) {
		return names[d]
	}
	return fmt.Sprintf("Driver(%d)", uint8(d))
}

// StageFlags are the stages a Binding locks to, or'ed together.
type StageFlags int32

// Stage flags.
const (
	LockVertexStage   StageFlags = 0x1
	LockHullStage     StageFlags = 0x2
	LockDomainStage   StageFlags = 0x4
	LockGeometryStage StageFlags = 0x8
	LockPixelStage    StageFlags = 0x10
	knownStageFlags              = 0x1F
)

// String returns the flag names joined by "|", "0" for none.
func (f StageFlags) String() string {
	return flagString(uint64(uint32(f)), []string{"Vertex", "Hull", "Domain", "Geometry", "Pixel"})
}

// BindingType is the type of a Binding.
type BindingType uint8

// Binding types.
const (
	BindingTexture             BindingType = 0
	BindingSampler             BindingType = 1
	BindingConstantBuffer      BindingType = 2
	BindingFixedConstantBuffer BindingType = 3
)

// ConstantType is the type of a material Constant (§13.7): 0 Float to 21
// VectorDouble4.
type ConstantType uint8

// Constant types.
const (
	ConstFloat ConstantType = iota
	ConstVectorFloat2
	ConstVectorFloat3
	ConstVectorFloat4
	ConstInteger
	ConstVectorInteger2
	ConstVectorInteger3
	ConstVectorInteger4
	ConstUnsigned
	ConstVectorUnsigned2
	ConstVectorUnsigned3
	ConstVectorUnsigned4
	ConstBoolean
	ConstVectorBoolean2
	ConstVectorBoolean3
	ConstVectorBoolean4
	ConstColorRGB
	ConstColorRGBA
	ConstDouble
	ConstVectorDouble2
	ConstVectorDouble3
	ConstVectorDouble4
)

// SpecTypeExt is the TypeExt of a SpecPack (§13.2).
type SpecTypeExt struct {
	VertexFormatHash64 uint64
	VertexFormatHash32 uint32
	Compatibility      Compatibility
	NumConstants       uint8
}

// Marshal returns the 16-byte TypeExt: Hash64 at 0, Hash32 at 8,
// Compatibility at 12, NumConstants at 13, two reserved zero bytes.
func (t SpecTypeExt) Marshal() [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], t.VertexFormatHash64)
	binary.LittleEndian.PutUint32(b[8:], t.VertexFormatHash32)
	b[12], b[13] = uint8(t.Compatibility), t.NumConstants
	return b
}

// ParseSpecTypeExt decodes and checks the TypeExt of a SpecPack: known
// compatibility flags and zero reserved bytes 14 and 15. Errors are
// *bpx.FormatError values with the file offset of the bad byte, matching
// ErrFormat.
func ParseSpecTypeExt(ext [16]byte) (SpecTypeExt, error) {
	t := SpecTypeExt{
		VertexFormatHash64: binary.LittleEndian.Uint64(ext[:]),
		VertexFormatHash32: binary.LittleEndian.Uint32(ext[8:]),
		Compatibility:      Compatibility(ext[12]),
		NumConstants:       ext[13],
	}
	if ext[12] > 0xF {
		return t, formatErr(-1, typeExtOffset+12, "shader package TypeExt: unknown compatibility flags %#02x", ext[12]&0xF0)
	}
	for i := 14; i < 16; i++ {
		if ext[i] != 0 {
			return t, formatErr(-1, int64(typeExtOffset+i), "shader package TypeExt: reserved byte %d is %#02x, want 0", i, ext[i])
		}
	}
	return t, nil
}

// String describes t on one line.
func (t SpecTypeExt) String() string {
	return fmt.Sprintf("vertex format hash %#016x / %#08x, compatibility %v, %d constants",
		t.VertexFormatHash64, t.VertexFormatHash32, t.Compatibility, t.NumConstants)
}
