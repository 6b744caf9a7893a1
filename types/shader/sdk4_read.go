package shader

import (
	"encoding/binary"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	bpxstrings "github.com/gobpx/bpx/strings"
)

var le = binary.LittleEndian

// ReadPack decodes a shader pack in the reference SDK 4 layout. The main
// header's Type must be 'S' and its TypeExt pass ParsePackTypeExt; the first
// SymbolTable section (required) must hold exactly the TypeExt's symbol
// count; names come from the first Strings section and extended data from
// the first ExtendedData section; every Shader section needs its stage byte.
// Sections of other types are ignored. Shader.Data shares the section's
// buffer.
func ReadPack(r *bpx.Reader) (*Pack, error) {
	if r.Header.Type != bpx.TypeShader {
		return nil, formatErr(-1, 3, "type %q is not a shader pack ('S')", r.Header.Type)
	}
	ext, err := ParsePackTypeExt(r.Header.TypeExt)
	if err != nil {
		return nil, headerTypeExtErr(r, err)
	}
	p := &Pack{AssemblyHash: ext.AssemblyHash, Target: ext.Target, Type: ext.Type}
	st := r.FindSection(SectionSymbolTable)
	if st == nil {
		return nil, formatErr(-1, tableOffset(r, 0), "no SymbolTable section (type 2)")
	}
	tab, err := st.Data()
	if err != nil {
		return nil, err
	}
	if want := int(ext.NumSymbols) * SymbolSize; len(tab) != want {
		return nil, formatErr(st.Index, int64(min(len(tab), want)), "SymbolTable holds %d bytes, the TypeExt's %d symbols need %d", len(tab), ext.NumSymbols, want)
	}
	if ext.NumSymbols > 0 {
		if p.Symbols, err = readSymbols(r, st, tab); err != nil {
			return nil, err
		}
	}
	for _, s := range r.SectionsOfType(SectionShader) {
		sh, err := readShader(s)
		if err != nil {
			return nil, err
		}
		p.Shaders = append(p.Shaders, sh)
	}
	return p, nil
}

func readShader(s *bpx.Section) (Shader, error) {
	data, err := s.Data()
	if err != nil {
		return Shader{}, err
	}
	if len(data) == 0 {
		return Shader{}, formatErr(s.Index, 0, "empty Shader section: no stage byte")
	}
	if data[0] > uint8(StagePixel) {
		return Shader{}, formatErr(s.Index, 0, "unknown shader stage %d", data[0])
	}
	return Shader{Stage: Stage(data[0]), Data: data[1:]}, nil
}

// readSymbols decodes the symbol table tab of section st.
func readSymbols(r *bpx.Reader, st *bpx.Section, tab []byte) ([]Symbol, error) {
	ss := r.FindSection(SectionStrings)
	if ss == nil {
		return nil, formatErr(-1, tableOffset(r, 0), "no Strings section (type 255) for the symbol names")
	}
	sdata, err := ss.Data()
	if err != nil {
		return nil, err
	}
	names := bpxstrings.NewTable(sdata)
	ext := extendedReader{r: r}
	syms := make([]Symbol, len(tab)/SymbolSize)
	for k := range syms {
		b := tab[k*SymbolSize:]
		off := int64(k * SymbolSize)
		sym := &syms[k]
		if sym.Name, err = names.Get(le.Uint32(b)); err != nil {
			return nil, &bpx.FormatError{Offset: off, Section: st.Index, What: "symbol name", Err: err}
		}
		sym.Flags = SymbolFlags(le.Uint16(b[8:]))
		sym.Type = SymbolType(b[10])
		sym.Register = b[11]
		if sym.Type > SymbolOutput {
			return nil, formatErr(st.Index, off+10, "symbol %d has unknown type %d", k, b[10])
		}
		if sym.Flags&FlagExtendedData != 0 {
			if sym.Extended, err = ext.object(st.Index, off+4, le.Uint32(b[4:])); err != nil {
				return nil, err
			}
		}
	}
	return syms, nil
}

// extendedReader decodes the objects of the ExtendedData section, each
// offset once. Objects may be shared but not overlap, so the decoding work
// is bounded by the section's size.
type extendedReader struct {
	r       *bpx.Reader
	sec     *bpx.Section
	data    []byte
	objs    map[uint32]*sd.Object
	decoded int
}

// object returns the object at offset ptr, for the symbol field at offset
// fieldOff of section symSec.
func (e *extendedReader) object(symSec int, fieldOff int64, ptr uint32) (*sd.Object, error) {
	if e.sec == nil {
		if e.sec = e.r.FindSection(SectionExtendedData); e.sec == nil {
			return nil, formatErr(symSec, fieldOff, "symbol has extended data but there is no ExtendedData section (type 3)")
		}
		var err error
		if e.data, err = e.sec.Data(); err != nil {
			return nil, err
		}
		e.objs = map[uint32]*sd.Object{}
	}
	if o, ok := e.objs[ptr]; ok {
		return o, nil
	}
	if uint64(ptr) >= uint64(len(e.data)) {
		return nil, formatErr(symSec, fieldOff, "extended data offset %d beyond the %d-byte ExtendedData section %d", ptr, len(e.data), e.sec.Index)
	}
	o, n, err := sd.DecodePrefix(e.data[ptr:])
	if err != nil {
		return nil, &bpx.FormatError{Offset: int64(ptr), Section: e.sec.Index, What: "extended data object", Err: err}
	}
	if e.decoded += n; e.decoded > len(e.data) {
		return nil, formatErr(e.sec.Index, int64(ptr), "extended data object at offset %d overlaps another", ptr)
	}
	e.objs[ptr] = o
	return o, nil
}
