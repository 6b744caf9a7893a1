package shader

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gobpx/bpx/sd"
)

// Section types of the reference SDK 4 layout.
const (
	SectionShader       = 1    // a stage byte, then the shader code (both layouts)
	SectionSymbolTable  = 2    // 12-byte symbols
	SectionExtendedData = 3    // BPXSD objects, addressed by byte offset
	SectionStrings      = 0xFF // symbol names (both layouts)
)

// SymbolSize is the size of one symbol in the SymbolTable.
const SymbolSize = 12

// Pack is a shader pack in the layout of the reference SDK 4 (see the
// package documentation).
type Pack struct {
	// AssemblyHash is the §7 hash of the assembly's virtual path.
	AssemblyHash uint64
	Target       Target
	Type         PackType
	// Symbols are the SymbolTable's entries, in order.
	Symbols []Symbol
	// Shaders are the Shader sections, in table order.
	Shaders []Shader
}

// Shader is one Shader section of a Pack.
type Shader struct {
	Stage Stage
	Data  []byte
}

// Symbol is one entry of a Pack's SymbolTable.
type Symbol struct {
	Name  string
	Flags SymbolFlags
	Type  SymbolType
	// Register is the register number, NoRegister (0xFF) for none.
	Register uint8
	// Extended is the symbol's extended data, nil for none. It must be
	// non-nil exactly when Flags has FlagExtendedData.
	Extended *sd.Object
}

// NoRegister is the Register value of a symbol without a register.
const NoRegister = 0xFF

// noExtendedData is the extended-data offset of a symbol without extended
// data.
const noExtendedData = 0x00FFFFFF

// Target is the rendering API a Pack targets (TypeExt byte 10), with the
// codes the reference uses since November 2021.
type Target uint8

// Targets.
const (
	TargetDX11 Target = 0x01
	TargetDX12 Target = 0x02
	TargetGL33 Target = 0x03
	TargetGL40 Target = 0x04
	TargetGL41 Target = 0x05
	TargetGL42 Target = 0x06
	TargetGL43 Target = 0x07
	TargetGL44 Target = 0x08
	TargetGL45 Target = 0x09
	TargetGL46 Target = 0x0A
	TargetES30 Target = 0x0B
	TargetES31 Target = 0x0C
	TargetES32 Target = 0x0D
	TargetVK10 Target = 0x0E
	TargetVK11 Target = 0x0F
	TargetVK12 Target = 0x10
	TargetMT   Target = 0x11 // Metal
	TargetAny  Target = 0xFF
)

var targetNames = [...]string{"", "DX11", "DX12", "GL33", "GL40", "GL41", "GL42", "GL43", "GL44", "GL45", "GL46",
	"ES30", "ES31", "ES32", "VK10", "VK11", "VK12", "MT"}

// Valid reports whether t is a known target code.
func (t Target) Valid() bool { return t == TargetAny || (t >= TargetDX11 && t <= TargetMT) }

// String returns the reference's name of t ("GL46", "Any"), or "Target(N)".
func (t Target) String() string {
	switch {
	case t == TargetAny:
		return "Any"
	case t.Valid():
		return targetNames[t]
	}
	return fmt.Sprintf("Target(%#02x)", uint8(t))
}

// PackType is what a Pack holds (TypeExt byte 11).
type PackType uint8

// Pack types.
const (
	TypeAssembly PackType = 'A'
	TypePipeline PackType = 'P'
)

// String returns "Assembly", "Pipeline" or "PackType(N)".
func (t PackType) String() string {
	switch t {
	case TypeAssembly:
		return "Assembly"
	case TypePipeline:
		return "Pipeline"
	}
	return fmt.Sprintf("PackType(%#02x)", uint8(t))
}

// Stage is a shader stage: the first byte of a Shader section.
type Stage uint8

// Stages.
const (
	StageVertex   Stage = 0
	StageHull     Stage = 1
	StageDomain   Stage = 2
	StageGeometry Stage = 3
	StagePixel    Stage = 4
)

var stageNames = [...]string{"Vertex", "Hull", "Domain", "Geometry", "Pixel"}

// String returns the stage's name or "Stage(N)".
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}

// SymbolType is the type of a symbol.
type SymbolType uint8

// Symbol types.
const (
	SymbolTexture        SymbolType = 0
	SymbolSampler        SymbolType = 1
	SymbolConstantBuffer SymbolType = 2
	SymbolConstant       SymbolType = 3
	SymbolVertexFormat   SymbolType = 4
	SymbolPipeline       SymbolType = 5
	SymbolOutput         SymbolType = 6
)

var symbolTypeNames = [...]string{"Texture", "Sampler", "ConstantBuffer", "Constant", "VertexFormat", "Pipeline", "Output"}

// String returns the type's name or "SymbolType(N)".
func (t SymbolType) String() string {
	if int(t) < len(symbolTypeNames) {
		return symbolTypeNames[t]
	}
	return fmt.Sprintf("SymbolType(%d)", uint8(t))
}

// SymbolFlags are the flags of a symbol, or'ed together.
type SymbolFlags uint16

// Symbol flags.
const (
	FlagVertexStage   SymbolFlags = 0x1
	FlagHullStage     SymbolFlags = 0x2
	FlagDomainStage   SymbolFlags = 0x4
	FlagGeometryStage SymbolFlags = 0x8
	FlagPixelStage    SymbolFlags = 0x10
	FlagAssembly      SymbolFlags = 0x20
	FlagExternal      SymbolFlags = 0x40
	FlagInternal      SymbolFlags = 0x80
	FlagExtendedData  SymbolFlags = 0x100
	FlagRegister      SymbolFlags = 0x200
)

var symbolFlagNames = [...]string{"Vertex", "Hull", "Domain", "Geometry", "Pixel", "Assembly", "External", "Internal", "ExtendedData", "Register"}

// String returns the flag names joined by "|", "0" for none, unknown bits in
// hexadecimal.
func (f SymbolFlags) String() string { return flagString(uint64(f), symbolFlagNames[:]) }

// flagString names the set bits of f, bit i being names[i].
func flagString(f uint64, names []string) string {
	if f == 0 {
		return "0"
	}
	var parts []string
	for i, n := range names {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := f &^ (1<<len(names) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", rest))
	}
	return strings.Join(parts, "|")
}

// PackTypeExt is the TypeExt of a Pack: AssemblyHash, the symbol count,
// Target and Type.
type PackTypeExt struct {
	AssemblyHash uint64
	NumSymbols   uint16
	Target       Target
	Type         PackType
}

// Marshal returns the 16-byte TypeExt.
func (t PackTypeExt) Marshal() [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], t.AssemblyHash)
	binary.LittleEndian.PutUint16(b[8:], t.NumSymbols)
	b[10], b[11] = uint8(t.Target), uint8(t.Type)
	return b
}

// ParsePackTypeExt decodes and checks the TypeExt of a Pack: a known target
// code, a type of 'A' or 'P' and zero bytes 12 to 15. Errors are
// *bpx.FormatError values with the file offset of the bad byte, matching
// ErrFormat.
func ParsePackTypeExt(ext [16]byte) (PackTypeExt, error) {
	t := PackTypeExt{
		AssemblyHash: binary.LittleEndian.Uint64(ext[:]),
		NumSymbols:   binary.LittleEndian.Uint16(ext[8:]),
		Target:       Target(ext[10]),
		Type:         PackType(ext[11]),
	}
	switch {
	case !t.Target.Valid():
		return t, formatErr(-1, typeExtOffset+10, "shader pack TypeExt: unknown target code %#02x", ext[10])
	case t.Type != TypeAssembly && t.Type != TypePipeline:
		return t, formatErr(-1, typeExtOffset+11, "shader pack TypeExt: type %#02x is neither 'A' nor 'P'", ext[11])
	}
	for i := 12; i < 16; i++ {
		if ext[i] != 0 {
			return t, formatErr(-1, int64(typeExtOffset+i), "shader pack TypeExt: byte %d is %#02x, want 0", i, ext[i])
		}
	}
	return t, nil
}

// String describes t on one line.
func (t PackTypeExt) String() string {
	return fmt.Sprintf("assembly hash %#016x, %d symbols, target %v, type %v", t.AssemblyHash, t.NumSymbols, t.Target, t.Type)
}
