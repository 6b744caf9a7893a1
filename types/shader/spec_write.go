package shader

import (
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/gobpx/bpx"
	bpxstrings "github.com/gobpx/bpx/strings"
)

// Validate checks that p can be written: at least one Assembly, known
// drivers, links only to shaders and binding sets listed in p, known binding
// stages and types, at most 255 constants with known types and names a
// string section can hold, and sections within 4 GiB - 1 bytes. Errors
// match ErrInvalid.
func (p *SpecPack) Validate() error {
	if p.Compatibility > 0xF {
		return invalidf("unknown compatibility flags %#x", uint8(p.Compatibility&0xF0))
	}
	if len(p.Assemblies) == 0 {
		return invalidf("no Assembly (one is required)")
	}
	if len(p.Constants) > math.MaxUint8 {
		return invalidf("%d constants, at most 255 fit the TypeExt", len(p.Constants))
	}
	shaders := make(map[*SpecShader]bool, len(p.Shaders))
	for i, sh := range p.Shaders {
		if sh == nil || uint64(len(sh.Data)) > math.MaxUint32 {
			return invalidf("shader %d is nil or larger than a section", i)
		}
		shaders[sh] = true
	}
	sets := make(map[*BindingSet]bool, len(p.BindingSets))
	for i, set := range p.BindingSets {
		if set == nil || uint64(len(set.Bindings))*BindingSize > math.MaxUint32 {
			return invalidf("binding set %d is nil or larger than a section", i)
		}
		for k, b := range set.Bindings {
			if b.Stages&^knownStageFlags != 0 || b.Type > BindingFixedConstantBuffer {
				return invalidf("binding set %d, binding %d: unknown stage flags or type (%+v)", i, k, b)
			}
		}
		sets[set] = true
	}
	for i, a := range p.Assemblies {
		if a == nil {
			return invalidf("assembly %d is nil", i)
		}
		if a.Driver > DriverMetal {
			return invalidf("assembly %d has unknown driver %v", i, a.Driver)
		}
		for _, sh := range []*SpecShader{a.Vertex, a.Domain, a.Hull, a.Geometry, a.Pixel} {
			if sh != nil && !shaders[sh] {
				return invalidf("assembly %d links to a shader missing from SpecPack.Shaders", i)
			}
		}
		if a.Bindings != nil && !sets[a.Bindings] {
			return invalidf("assembly %d links to a binding set missing from SpecPack.BindingSets", i)
		}
	}
	for k, c := range p.Constants {
		if c.Type > ConstVectorDouble4 {
			return invalidf("constant %d has unknown type %d", k, c.Type)
		}
		if !utf8.ValidString(c.Name) || strings.IndexByte(c.Name, 0) >= 0 {
			return invalidf("constant %d name %q is not valid UTF-8 without NUL bytes", k, c.Name)
		}
	}
	return nil
}

// WriteSpec stores p in w in the spec's layout, after validating it (errors
// match ErrInvalid): Type 'S', the TypeExt, then, each stored as o asks,
// the Shader sections, the Bindings sections, the Assembly sections, the
// MaterialConstants section and the Strings section (both written even
// when empty), in that order. Section links are written 1-based from the
// sections' positions in w (sections already in w count). The caller closes
// w.
func WriteSpec(w *bpx.Writer, p *SpecPack, o bpx.SectionOptions) error {
	if err := p.Validate(); err != nil {
		return err
	}
	w.SetType(bpx.TypeShader)
	w.SetTypeExt(SpecTypeExt{VertexFormatHash64: p.VertexFormatHash64, VertexFormatHash32: p.VertexFormatHash32,
		Compatibility: p.Compatibility, NumConstants: uint8(len(p.Constants))}.Marshal())
	links := map[any]uint32{}
	next := uint32(w.SectionCount()) + 1
	var buf []byte
	for _, sh := range p.Shaders {
		links[sh] = next
		next++
		if err := w.WriteSection(SectionShader, o, sh.Data); err != nil {
			return err
		}
	}
	for _, set := range p.BindingSets {
		links[set] = next
		next++
		buf = buf[:0]
		for _, b := range set.Bindings {
			buf = le.AppendUint32(buf, uint32(b.Stages))
			buf = append(buf, uint8(b.Type), b.Register, 0, 0)
		}
		if err := w.WriteSection(SectionBindings, o, buf); err != nil {
			return err
		}
	}
	for _, a := range p.Assemblies {
		buf = append(buf[:0], uint8(a.Driver), 0, 0, 0)
		buf = le.AppendUint32(buf, a.MinVersion)
		for _, sh := range []*SpecShader{a.Vertex, a.Domain, a.Hull, a.Geometry, a.Pixel} {
			buf = le.AppendUint32(buf, linkTo(links, sh))
		}
		n, id := 0, uint32(0)
		if a.Bindings != nil {
			n, id = len(a.Bindings.Bindings), links[a.Bindings]
		}
		buf = le.AppendUint32(buf, uint32(n))
		buf = le.AppendUint32(buf, id)
		if err := w.WriteSection(SectionAssembly, o, buf); err != nil {
			return err
		}
	}
	var names bpxstrings.Builder
	buf = buf[:0]
	for _, c := range p.Constants {
		off, err := names.Add(c.Name)
		if err != nil {
			return invalidf("constant name: %v", err)
		}
		buf = le.AppendUint32(buf, off)
		buf = append(buf, uint8(c.Type), 0, 0, 0)
	}
	if err := w.WriteSection(SectionMaterialConstants, o, buf); err != nil {
		return err
	}
	return w.WriteSection(SectionStrings, o, names.Bytes())
}

// linkTo returns the link of sh, 0 for nil.
func linkTo(links map[any]uint32, sh *SpecShader) uint32 {
	if sh == nil {
		return 0
	}
	return links[sh]
}

// EncodeSpec writes p to out as a complete BPX container (see WriteSpec).
// Nothing is written when p does not validate.
func EncodeSpec(out io.Writer, p *SpecPack, o bpx.SectionOptions) error {
	return encode(out, p.Validate, func(w *bpx.Writer) error { return WriteSpec(w, p, o) })
}
