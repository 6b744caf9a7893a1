package main

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gobpx/bpx"
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

// sectionTypeNames names the standard section types, which any container
// may hold.
var sectionTypeNames = map[uint8]string{
	bpx.SectionTypeStrings:        "strings",
	bpx.SectionTypeStructuredData: "structured data",
	bpx.SectionTypeTable:          "table",
}

// typeSectionNames names the section types each container type defines,
// over sectionTypeNames. Shader packs have two layouts: see
// shaderSectionNames.
var typeSectionNames = map[uint8]map[uint8]string{
	bpx.TypePackage: {
		pack.SectionData:        "data",
		pack.SectionObjectTable: "object table",
		pack.SectionMetadata:    "metadata",
		pack.SectionStrings:     "strings",
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

// sectionNamer names the section types of one container.
type sectionNamer struct {
	own map[uint8]string // the container type's, or nil
}

// newSectionNamer returns the namer for r: its type's section types (for
// a shader pack, those of the layout shader.Detect finds), over the
// standard ones. A version-0 draft package, whose section types differ,
// gets the standard names only.
func newSectionNamer(r *bpx.Reader) sectionNamer {
	switch {
	case r.Header.Type == bpx.TypeShader:
		if layout, err := shader.Detect(r); err == nil {
			return sectionNamer{shaderSectionNames[layout]}
		}
	case r.Header.Type == bpx.TypePackage && r.Header.Version == 0:
	default:
		return sectionNamer{typeSectionNames[r.Header.Type]}
	}
	return sectionNamer{}
}

// name returns the name of section type t, or "".
func (n sectionNamer) name(t uint8) string {
	if name := n.own[t]; name != "" {
		return name
	}
	return sectionTypeNames[t]
}

// symbolJSON is one symbol of an SDK 4 shader pack in bpx info --json.
type symbolJSON struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Flags string `json:"flags"`
}

// shaderInfo is what bpx info shows of a shader pack beyond its sections:
// its layout and, for the SDK 4 layout, the symbols.
type shaderInfo struct {
	Layout  string       `json:"layout"`
	Symbols []symbolJSON `json:"symbols,omitempty"`
	// Error says why the symbols could not be read.
	Error string `json:"error,omitempty"`
}

// readShaderInfo reads the layout and the symbols of the shader pack r,
// or returns nil if r is none.
func readShaderInfo(r *bpx.Reader) *shaderInfo {
	if r.Header.Type != bpx.TypeShader {
		return nil
	}
	layout, err := shader.Detect(r)
	info := &shaderInfo{Layout: layout.String()}
	if err != nil {
		info.Error = err.Error()
		return info
	}
	if layout != shader.LayoutSDK4 {
		return info
	}
	p, err := shader.ReadPack(r)
	if err != nil {
		info.Error = err.Error()
		return info
	}
	info.Symbols = []symbolJSON{}
	for _, sym := range p.Symbols {
		info.Symbols = append(info.Symbols, symbolJSON{sym.Name, sym.Type.String(), sym.Flags.String()})
	}
	return info
}

// print writes the layout and the symbols as text.
func (si *shaderInfo) print(w io.Writer) {
	fmt.Fprintf(w, "layout:    %s\n", si.Layout)
	if si.Error != "" {
		fmt.Fprintf(w, "symbols:   unreadable: %s\n", si.Error)
		return
	}
	if si.Symbols == nil {
		return
	}
	fmt.Fprintf(w, "symbols:   %d\n", len(si.Symbols))
	width := len("name")
	for _, sym := range si.Symbols {
		width = max(width, len(strconv.Quote(sym.Name)))
	}
	if len(si.Symbols) > 0 {
		fmt.Fprintf(w, "  %-*s  %-14s  %s\n", width, "name", "type", "flags")
	}
	for _, sym := range si.Symbols {
		fmt.Fprintf(w, "  %-*s  %-14s  %s\n", width, strconv.Quote(sym.Name), sym.Type, sym.Flags)
	}
}

type infoJSON struct {
	Type     any           `json:"type"`
	Version  uint32        `json:"version"`
	Checksum uint32        `json:"checksum"`
	FileSize uint64        `json:"file_size"`
	TypeExt  string        `json:"type_ext"`
	Sections []sectionJSON `json:"sections"`
	// DeadBytes counts the bytes of a package's data sections that no
	// object uses (packages only).
	DeadBytes *uint64 `json:"dead_bytes,omitempty"`
	// Shader is the layout and symbols of a shader pack.
	Shader *shaderInfo `json:"shader,omitempty"`
}

type sectionJSON struct {
	Index    int    `json:"index"`
	Type     uint8  `json:"type"`
	Name     string `json:"name,omitempty"` // of the type, when bpx knows it
	Flags    uint8  `json:"flags"`
	Pointer  uint64 `json:"pointer"`
	CSize    uint32 `json:"csize"`
	USize    uint32 `json:"usize"`
	Checksum uint32 `json:"checksum"`
}

// infoFlags are the flags of "bpx info".
type infoFlags struct{ json bool }

func setupInfo(fs *flag.FlagSet) func(*env, []string) int {
	var f infoFlags
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	return f.run
}

func (f *infoFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want exactly one FILE")
	}
	r, err := openContainer(pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer r.Close()
	if f.json {
		out := infoJSON{Type: typeByte(r.Header.Type), Version: r.Header.Version, Checksum: r.Header.Checksum,
			FileSize: r.Header.FileSize, TypeExt: hex.EncodeToString(r.Header.TypeExt[:]), Sections: []sectionJSON{}}
		names := newSectionNamer(r.Reader)
		for _, s := range r.Sections {
			out.Sections = append(out.Sections, sectionJSON{s.Index, s.Type, names.name(s.Type), s.Flags, s.Pointer, s.CSize, s.USize, s.Checksum})
		}
		out.Shader = readShaderInfo(r.Reader)
		if p := openPackage(r.Reader); p != nil {
			if dead, err := p.DeadBytes(); err == nil {
				out.DeadBytes = &dead
			}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	printInfo(e.Stdout, pos[0], r.Reader)
	if p := openPackage(r.Reader); p != nil {
		fmt.Fprintf(e.Stdout, "objects:   %d\n", len(p.Objects()))
		if dead, err := p.DeadBytes(); err == nil {
			fmt.Fprintf(e.Stdout, "dead bytes: %d in data sections (bpx repack reclaims them)\n", dead)
		}
	}
	if si := readShaderInfo(r.Reader); si != nil {
		si.print(e.Stdout)
	}
	return exitOK
}

// openPackage opens r as a package, or returns nil if it is none or does
// not open (bpx verify reports why).
func openPackage(r *bpx.Reader) *pack.Package {
	if r.Header.Type != bpx.TypePackage {
		return nil
	}
	p, err := pack.New(r, pack.IgnoreTypeExt())
	if err != nil {
		return nil
	}
	return p
}

// typeByte is the type byte as a one-character string when printable, else
// its number.
func typeByte(t uint8) any {
	if t >= 0x21 && t < 0x7F {
		return string(rune(t))
	}
	return t
}

func printInfo(w io.Writer, name string, r *bpx.Reader) {
	h := &r.Header
	tname := typeNames[h.Type]
	if tname == "" {
		tname = "unknown type"
	}
	fmt.Fprintf(w, "file:      %s (%d bytes)\n", name, r.Size())
	fmt.Fprintf(w, "type:      %s (%s)\n", quoteType(h.Type), tname)
	fmt.Fprintf(w, "version:   %d\n", h.Version)
	fmt.Fprintf(w, "checksum:  %#x\n", h.Checksum)
	fmt.Fprintf(w, "file size: %d\n", h.FileSize)
	fmt.Fprintf(w, "type ext:  %s\n", hex.EncodeToString(h.TypeExt[:]))
	if d := typeExtDescribers[h.Type]; d != nil {
		fmt.Fprintf(w, "           %s\n", d(h.TypeExt))
	}
	fmt.Fprintf(w, "sections:  %d\n", len(r.Sections))
	if len(r.Sections) == 0 {
		return
	}
	names := newSectionNamer(r)
	fmt.Fprintf(w, "%6s  %-24s  %-16s  %10s  %10s  %10s  %10s\n", "index", "type", "flags", "pointer", "csize", "usize", "checksum")
	for _, s := range r.Sections {
		fmt.Fprintf(w, "%6d  %-24s  %-16s  %10d  %10d  %10d  %#10x\n",
			s.Index, sectionType(s.Type, names.name(s.Type)), flagNames(s.Flags), s.Pointer, s.CSize, s.USize, s.Checksum)
	}
}

func quoteType(t uint8) string {
	if s, ok := typeByte(t).(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%#02x", t)
}

// sectionType is t in hexadecimal, followed by its name n if any.
func sectionType(t uint8, n string) string {
	if n != "" {
		return fmt.Sprintf("%#02x %s", t, n)
	}
	return fmt.Sprintf("%#02x", t)
}

func flagNames(f uint8) string {
	var parts []string
	for _, x := range []struct {
		bit  uint8
		name string
	}{{bpx.FlagZlib, "zlib"}, {bpx.FlagXZ, "xz"}, {bpx.FlagCRC32, "crc32"}, {bpx.FlagWeak, "weak"}} {
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
