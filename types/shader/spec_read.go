package shader

import (
	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// Offsets of the Assembly fields.
const (
	asmDriver     = 0
	asmMinVersion = 4
	asmVertex     = 8
	asmDomain     = 12
	asmHull       = 16
	asmGeometry   = 20
	asmPixel      = 24
	asmNBindings  = 28
	asmBindingsID = 32
)

// ReadSpec decodes a shader package in the layout of spec rev 2 §13. The
// main header's Type must be 'S' and its TypeExt pass ParseSpecTypeExt;
// at least one Assembly is required, each 36 bytes, its section links naming
// Shader and Bindings sections (1-based, 0 for none), its binding count
// matching the linked Bindings section; the MaterialConstants section
// (required when NumConstants is not 0, at most one) must hold exactly
// NumConstants constants, named in the Strings section. Unknown codes,
// unknown flag bits and non-zero reserved fields are errors. Sections of
// other types are ignored. SpecShader.Data shares the section's buffer.
func ReadSpec(r *bpx.Reader) (*SpecPack, error) {
	if r.Header.Type != bpx.TypeShader {
		return nil, formatErr(-1, 3, "type %q is not a shader pack ('S')", r.Header.Type)
	}
	ext, err := ParseSpecTypeExt(r.Header.TypeExt)
	if err != nil {
		return nil, headerTypeExtErr(r, err)
	}
	for _, typ := range []uint8{SectionMaterialConstants, SectionStrings} {
		if s := r.SectionsOfType(typ); len(s) > 1 {
			return nil, formatErr(-1, tableOffset(r, s[1].Index), "second section of type %d (section %d; the spec allows one)", typ, s[1].Index)
		}
	}
	p := &SpecPack{VertexFormatHash64: ext.VertexFormatHash64, VertexFormatHash32: ext.VertexFormatHash32, Compatibility: ext.Compatibility}
	sr := specReader{r: r, p: p, shaders: map[int]*SpecShader{}, sets: map[int]*BindingSet{}}
	var asmSecs []*bpx.Section
	for _, s := range r.Sections {
		switch s.Type {
		case SectionShader:
			err = sr.shader(s)
		case SectionBindings:
			err = sr.bindings(s)
		case SectionAssembly:
			asmSecs = append(asmSecs, s)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(asmSecs) == 0 {
		return nil, formatErr(-1, tableOffset(r, 0), "no Assembly section (type 2; at least one is required)")
	}
	for _, s := range asmSecs {
		if err := sr.assembly(s); err != nil {
			return nil, err
		}
	}
	if err := sr.constants(ext.NumConstants); err != nil {
		return nil, err
	}
	return p, nil
}

// specReader holds the state of one ReadSpec.
type specReader struct {
	r       *bpx.Reader
	p       *SpecPack
	shaders map[int]*SpecShader // by section index
	sets    map[int]*BindingSet // by section index
}

func (sr *specReader) shader(s *bpx.Section) error {
	data, err := s.Data()
	if err != nil {
		return err
	}
	sh := &SpecShader{Data: data}
	sr.p.Shaders = append(sr.p.Shaders, sh)
	sr.shaders[s.Index] = sh
	return nil
}

func (sr *specReader) bindings(s *bpx.Section) error {
	data, err := s.Data()
	if err != nil {
		return err
	}
	if rest := len(data) % BindingSize; rest != 0 {
		return formatErr(s.Index, int64(len(data)-rest), "Bindings section of %d bytes ends with %d bytes of an %d-byte binding", len(data), rest, BindingSize)
	}
	set := &BindingSet{Bindings: make([]Binding, len(data)/BindingSize)}
	for k := range set.Bindings {
		b := data[k*BindingSize:]
		off := int64(k * BindingSize)
		bd := Binding{Stages: StageFlags(int32(le.Uint32(b))), Type: BindingType(b[4]), Register: b[5]}
		switch {
		case bd.Stages&^knownStageFlags != 0:
			return formatErr(s.Index, off, "binding %d has unknown stage flags %#x", k, uint32(bd.Stages&^knownStageFlags))
		case bd.Type > BindingFixedConstantBuffer:
			return formatErr(s.Index, off+4, "binding %d has unknown type %d", k, b[4])
		case b[6] != 0 || b[7] != 0:
			return formatErr(s.Index, off+6, "binding %d Reserved is not 0", k)
		}
		set.Bindings[k] = bd
	}
	sr.p.BindingSets = append(sr.p.BindingSets, set)
	sr.sets[s.Index] = set
	return nil
}

func (sr *specReader) assembly(s *bpx.Section) error {
	data, err := s.Data()
	if err != nil {
		return err
	}
	if len(data) != AssemblySize {
		return formatErr(s.Index, int64(min(len(data), AssemblySize)), "Assembly of %d bytes, want %d", len(data), AssemblySize)
	}
	a := &Assembly{Driver: Driver(data[asmDriver]), MinVersion: le.Uint32(data[asmMinVersion:])}
	if a.Driver > DriverMetal {
		return formatErr(s.Index, asmDriver, "unknown driver %d", data[asmDriver])
	}
	if data[1] != 0 || data[2] != 0 || data[3] != 0 {
		return formatErr(s.Index, 1, "Assembly Reserved is not 0")
	}
	for _, f := range []struct {
		off int
		dst **SpecShader
	}{{asmVertex, &a.Vertex}, {asmDomain, &a.Domain}, {asmHull, &a.Hull}, {asmGeometry, &a.Geometry}, {asmPixel, &a.Pixel}} {
		idx, err := sr.link(s, data, f.off, SectionShader)
		if err != nil {
			return err
		}
		if idx >= 0 {
			*f.dst = sr.shaders[idx]
		}
	}
	n := le.Uint32(data[asmNBindings:])
	idx, err := sr.link(s, data, asmBindingsID, SectionBindings)
	if err != nil {
		return err
	}
	have := 0
	if idx >= 0 {
		a.Bindings = sr.sets[idx]
		have = len(a.Bindings.Bindings)
	}
	if uint64(n) != uint64(have) {
		return formatErr(s.Index, asmNBindings, "Assembly declares %d bindings, its Bindings section holds %d", n, have)
	}
	sr.p.Assemblies = append(sr.p.Assemblies, a)
	return nil
}

// link reads the 1-based section link at offset off of data, the content of
// Assembly section s; the link must name a section of type typ. It returns
// the 0-based index, or -1 for none.
func (sr *specReader) link(s *bpx.Section, data []byte, off int, typ uint8) (int, error) {
	v := le.Uint32(data[off:])
	if v == 0 {
		return -1, nil
	}
	target := int64(v) - 1
	if target >= int64(len(sr.r.Sections)) {
		return 0, formatErr(s.Index, int64(off), "link %d names section %d, the file has %d sections", v, target, len(sr.r.Sections))
	}
	if got := sr.r.Sections[target].Type; got != typ {
		return 0, formatErr(s.Index, int64(off), "link %d names section %d of type %d, want type %d", v, target, got, typ)
	}
	return int(target), nil
}

func (sr *specReader) constants(n uint8) error {
	cs := sr.r.FindSection(SectionMaterialConstants)
	if cs == nil {
		if n != 0 {
			return headerTypeExtErr(sr.r, formatErr(-1, typeExtOffset+13, "NumConstants is %d but there is no MaterialConstants section (type 4)", n))
		}
		return nil
	}
	data, err := cs.Data()
	if err != nil {
		return err
	}
	if len(data) != int(n)*ConstantSize {
		return formatErr(cs.Index, int64(min(len(data), int(n)*ConstantSize)), "MaterialConstants holds %d bytes, the TypeExt's %d constants need %d", len(data), n, int(n)*ConstantSize)
	}
	if n == 0 {
		return nil
	}
	ss := sr.r.FindSection(SectionStrings)
	if ss == nil {
		return formatErr(-1, tableOffset(sr.r, 0), "no Strings section (type 255) for the constant names")
	}
	sdata, err := ss.Data()
	if err != nil {
		return err
	}
	names := bpxstrings.NewTable(sdata)
	sr.p.Constants = make([]Constant, n)
	for k := range sr.p.Constants {
		b := data[k*ConstantSize:]
		off := int64(k * ConstantSize)
		c := &sr.p.Constants[k]
		if c.Name, err = names.Get(le.Uint32(b)); err != nil {
			return &bpx.FormatError{Offset: off, Section: cs.Index, What: "constant name", Err: err}
		}
		c.Type = ConstantType(b[4])
		if c.Type > ConstVectorDouble4 {
			return formatErr(cs.Index, off+4, "constant %d has unknown type %d", k, b[4])
		}
		if b[5] != 0 || b[6] != 0 || b[7] != 0 {
			return formatErr(cs.Index, off+5, "constant %d Reserved is not 0", k)
		}
	}
	return nil
}
