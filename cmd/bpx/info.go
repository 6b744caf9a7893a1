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
	"github.com/gobpx/bpx/types/pack"
)

// typeNames names the BPX types the spec defines.
var typeNames = map[uint8]string{
	bpx.TypePackage: "package",
	bpx.TypeShader:  "shader pack",
	bpx.TypeTexture: "texture",
	bpx.TypeModel:   "model",
	bpx.TypeScene:   "scene (no layout defined by the spec)",
}

// sectionTypeNames names the standard section types.
var sectionTypeNames = map[uint8]string{
	bpx.SectionTypeStrings:        "strings",
	bpx.SectionTypeStructuredData: "structured data",
	bpx.SectionTypeTable:          "table",
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
}

type sectionJSON struct {
	Index    int    `json:"index"`
	Type     uint8  `json:"type"`
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
		for _, s := range r.Sections {
			out.Sections = append(out.Sections, sectionJSON{s.Index, s.Type, s.Flags, s.Pointer, s.CSize, s.USize, s.Checksum})
		}
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
	fmt.Fprintf(w, "%6s  %-20s  %-16s  %10s  %10s  %10s  %10s\n", "index", "type", "flags", "pointer", "csize", "usize", "checksum")
	for _, s := range r.Sections {
		fmt.Fprintf(w, "%6d  %-20s  %-16s  %10d  %10d  %10d  %#10x\n",
			s.Index, sectionType(s.Type), flagNames(s.Flags), s.Pointer, s.CSize, s.USize, s.Checksum)
	}
}

func quoteType(t uint8) string {
	if s, ok := typeByte(t).(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%#02x", t)
}

func sectionType(t uint8) string {
	if n := sectionTypeNames[t]; n != "" {
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
