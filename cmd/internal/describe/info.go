package describe

import (
	"encoding/hex"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// Info is the JSON object of "bpx info --json".
type Info struct {
	Type     any       `json:"type"` // see TypeByte
	Version  uint32    `json:"version"`
	Checksum uint32    `json:"checksum"`
	FileSize uint64    `json:"file_size"`
	TypeExt  string    `json:"type_ext"` // hexadecimal
	Sections []Section `json:"sections"`
	// DeadBytes counts the bytes of a package's data sections that no
	// object uses (packages only).
	DeadBytes *uint64 `json:"dead_bytes,omitempty"`
	// Shader is the layout and symbols of a shader pack.
	Shader *Shader `json:"shader,omitempty"`
	// Signature says who signed the file and whether it matches (see
	// InspectSignature); the caller sets it.
	Signature *Signature `json:"signature,omitempty"`
}

// Section is one section in Info.
type Section struct {
	Index    int    `json:"index"`
	Type     uint8  `json:"type"`
	Name     string `json:"name,omitempty"` // of the type, when bpx knows it
	Flags    uint8  `json:"flags"`
	Pointer  uint64 `json:"pointer"`
	CSize    uint32 `json:"csize"`
	USize    uint32 `json:"usize"`
	Checksum uint32 `json:"checksum"`
}

// Describe returns the Info of r. p is r opened as a package (nil when r
// is none or does not open as one); it gives DeadBytes.
func Describe(r *bpx.Reader, p *pack.Package) Info {
	out := Info{Type: TypeByte(r.Header.Type), Version: r.Header.Version, Checksum: r.Header.Checksum,
		FileSize: r.Header.FileSize, TypeExt: hex.EncodeToString(r.Header.TypeExt[:]), Sections: []Section{}}
	names := NewSectionNamer(r)
	for _, s := range r.Sections {
		out.Sections = append(out.Sections, Section{s.Index, s.Type, names.Name(s.Type), s.Flags, s.Pointer, s.CSize, s.USize, s.Checksum})
	}
	out.Shader = ReadShader(r)
	if p != nil {
		if dead, err := p.DeadBytes(); err == nil {
			out.DeadBytes = &dead
		}
	}
	return out
}

// OpenPackage opens r as a package, or returns nil if it is none or does
// not open ("bpx verify" says why). The caller closes it. It is opened for
// counting (pack.SkipNames): objects and dead bytes, no names; reading
// them would decompress the strings section, up to 4 GiB, for nothing
// shown.
func OpenPackage(r *bpx.Reader) *pack.Package {
	if r.Header.Type != bpx.TypePackage {
		return nil
	}
	p, err := pack.New(r, pack.IgnoreTypeExt(), pack.SkipNames())
	if err != nil {
		return nil
	}
	return p
}
