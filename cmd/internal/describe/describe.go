// Package describe names and describes the parts of a BPX container for
// people: type and section type names, flag names, the decoded TypeExt,
// a shader pack's layout and symbols, and the JSON object of
// "bpx info --json". "bpx info" and the explorer behind "bpx serve" share
// it, so that both say the same thing.
package describe

import (
	"fmt"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/shader"
	"github.com/gobpx/bpx/types/texture"
)

// typeNames names the BPX types the spec defines.
var typeNames = map[uint8]string{
	bpx.TypePackage: "package",
	bpx.TypeShader:  "shader pack",
	bpx.TypeTexture: "texture",
	bpx.TypeModel:   "model",
	bpx.TypeScene:   "scene (no layout defined by the spec)",
}

// TypeName returns the name of the BPX type t ("package", "texture"...),
// or "" when the spec does not define t.
func TypeName(t uint8) string { return typeNames[t] }

// TypeByte is the type byte as a one-character string when printable,
// else its number: the "type" of "bpx info --json".
func TypeByte(t uint8) any {
	if t >= 0x21 && t < 0x7F {
		return string(rune(t))
	}
	return t
}

// sectionTypeNames names the standard section types, which any container
// may hold.
var sectionTypeNames = map[uint8]string{
	bpx.SectionTypeStrings:        "strings",
	bpx.SectionTypeStructuredData: "structured data",
	bpx.SectionTypeTable:          "table",
	sign.SectionType:              "signature",
}

// typeSectionNames names the section types each container type defines,
// over sectionTypeNames. Shader packs have two layouts: see
// shaderSectionNames.
var typeSectionNames = map[uint8]map[uint8]string{
	bpx.TypePackage: {
		pack.SectionData:          "data",
		pack.SectionObjectTable:   "object table",
		pack.SectionMetadata:      "metadata",
		pack.SectionStrings:       "strings",
		pack.SectionDigests:       "object digests",
		pack.SectionPathIndex:     "path index",
		pack.SectionChunkDigests:  "chunk digests",
		pack.SectionModTimes:      "object times",
		pack.SectionStreamDigests: "stream digests",
	},
	bpx.TypeTexture: {
		texture.SectionPixelArray: "pixel array",
	},
	bpx.TypeModel: {
		model.SectionVertexArray:    "vertex array",
		model.SectionIndexArray:     "index array",
		model.SectionBoneArray:      "bone array",
		model.SectionFrameArray:     "frame array",
		model.SectionAnimationArray: "animation array",
		model.SectionStrings:        "strings",
	},
}

// shaderSectionNames names the section types of each shader pack layout.
var shaderSectionNames = map[shader.Layout]map[uint8]string{
	shader.LayoutSDK4: {
		shader.SectionShader:       "shader",
		shader.SectionSymbolTable:  "symbol table",
		shader.SectionExtendedData: "extended data",
		shader.SectionStrings:      "strings",
	},
	shader.LayoutSpec: {
		shader.SectionShader:            "shader",
		shader.SectionAssembly:          "assembly",
		shader.SectionBindings:          "bindings",
		shader.SectionMaterialConstants: "material constants",
		shader.SectionStrings:           "strings",
	},
}

// SectionNamer names the section types of one container.
type SectionNamer struct {
	own map[uint8]string // the container type's, or nil
}

// NewSectionNamer returns the namer for r: its type's section types (for
// a shader pack, those of the layout shader.Detect finds), over the
// standard ones. A version-0 draft package, whose section types differ,
// gets the standard names only.
func NewSectionNamer(r *bpx.Reader) SectionNamer {
	switch {
	case r.Header.Type == bpx.TypeShader:
		if layout, err := shader.Detect(r); err == nil {
			return SectionNamer{shaderSectionNames[layout]}
		}
	case r.Header.Type == bpx.TypePackage && r.Header.Version == 0:
	default:
		return SectionNamer{typeSectionNames[r.Header.Type]}
	}
	return SectionNamer{}
}

// Name returns the name of section type t, or "" when neither the
// container's type nor the standard defines it.
func (n SectionNamer) Name(t uint8) string {
	if name := n.own[t]; name != "" {
		return name
	}
	return sectionTypeNames[t]
}

// View is how a viewer best shows a section of type t: "sd" (BPXSD),
// "table", "strings" or "hex". Every layout bpx knows stores these kinds
// under the standard type numbers (a package's metadata is BPXSD, every
// 0xFF section holds strings).
func View(t uint8) string {
	switch t {
	case bpx.SectionTypeStructuredData:
		return "sd"
	case bpx.SectionTypeTable:
		return "table"
	case bpx.SectionTypeStrings:
		return "strings"
	}
	return "hex"
}

// FlagNames names the section flags f, comma-separated ("xz,crc32"), an
// unknown bit by its value; "-" when f is 0.
func FlagNames(f uint8) string {
	var parts []string
	for _, x := range []struct {
		bit  uint8
		name string
	}{{bpx.FlagZlib, "zlib"}, {bpx.FlagXZ, "xz"}, {bpx.FlagZstd, "zstd"}, {bpx.FlagCRC32, "crc32"}, {bpx.FlagWeak, "weak"}} {
		if f&x.bit != 0 {
			parts = append(parts, x.name)
			f &^= x.bit
		}
	}
	if f != 0 {
		parts = append(parts, fmt.Sprintf("%#02x", f))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}
