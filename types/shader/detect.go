package shader

import (
	"fmt"

	"github.com/gobpx/bpx"
)

// Layout is the on-disk layout of a shader pack.
type Layout int

// Layouts.
const (
	LayoutUnknown Layout = iota
	LayoutSpec           // spec rev 2 §13: SpecPack, ReadSpec
	LayoutSDK4           // the reference SDK 4: Pack, ReadPack
)

// String returns "spec", "SDK 4" or "unknown".
func (l Layout) String() string {
	switch l {
	case LayoutSpec:
		return "spec"
	case LayoutSDK4:
		return "SDK 4"
	}
	return "unknown"
}

// Detect tells which layout the shader pack r uses, from its TypeExt and
// section table only (no section is read):
//
//  1. a MaterialConstants section (type 4), which only the spec layout has
//     (WriteSpec always writes one), means LayoutSpec;
//  2. otherwise a TypeExt that ParsePackTypeExt accepts (a known target, a
//     type of 'A' or 'P', zero bytes 12-15) together with a first type-2
//     section of exactly 12 × NumSymbols bytes means LayoutSDK4;
//  3. otherwise a TypeExt that ParseSpecTypeExt accepts with type-2 sections
//     that are all 36-byte Assemblies means LayoutSpec.
//
// Anything else is an error matching ErrFormat, as is a Type other than 'S'.
func Detect(r *bpx.Reader) (Layout, error) {
	if r.Header.Type != bpx.TypeShader {
		return LayoutUnknown, formatErr(-1, 3, "type %q is not a shader pack ('S')", r.Header.Type)
	}
	if r.FindSection(SectionMaterialConstants) != nil {
		return LayoutSpec, nil
	}
	type2 := r.SectionsOfType(SectionSymbolTable)
	packExt, packErr := ParsePackTypeExt(r.Header.TypeExt)
	if packErr == nil && len(type2) > 0 && int(type2[0].USize) == SymbolSize*int(packExt.NumSymbols) {
		return LayoutSDK4, nil
	}
	_, specErr := ParseSpecTypeExt(r.Header.TypeExt)
	allAssemblies := len(type2) > 0
	for _, s := range type2 {
		allAssemblies = allAssemblies && s.USize == AssemblySize
	}
	if specErr == nil && allAssemblies {
		return LayoutSpec, nil
	}
	return LayoutUnknown, formatErr(-1, tableOffset(r, 0), "shader pack in neither layout: no MaterialConstants section, type-2 sections fit neither a %d-symbol table nor 36-byte assemblies", packExt.NumSymbols)
}

// DescribeTypeExt describes a shader TypeExt on one line for display. With
// the TypeExt alone the layout is a guess: a TypeExt that ParsePackTypeExt
// accepts is shown as SDK 4 ("shader pack (SDK 4 layout): assembly hash
// ..."), else one ParseSpecTypeExt accepts as spec ("shader package (spec
// layout): vertex format hash ..."); otherwise "invalid shader TypeExt: ...".
// It never panics.
func DescribeTypeExt(ext [16]byte) string {
	p, err := ParsePackTypeExt(ext)
	if err == nil {
		return "shader pack (SDK 4 layout): " + p.String()
	}
	s, err2 := ParseSpecTypeExt(ext)
	if err2 == nil {
		return "shader package (spec layout): " + s.String()
	}
	return fmt.Sprintf("invalid shader TypeExt: %s (byte %d)", err2.(*bpx.FormatError).What, err2.(*bpx.FormatError).Offset-typeExtOffset)
}
