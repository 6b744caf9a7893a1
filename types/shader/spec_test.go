package shader

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
)

func TestSpecGolden(t *testing.T) {
	file := container(t, 'S', specExt, specSections()...)
	r := openBytes(t, file)
	if l, err := Detect(r); l != LayoutSpec || err != nil {
		t.Fatalf("Detect = %v, %v", l, err)
	}
	p, err := ReadSpec(r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, specPack()) {
		t.Fatalf("decoded %+v", p)
	}
	a := p.Assemblies[0]
	if a.Vertex != p.Shaders[1] || a.Pixel != p.Shaders[0] || a.Bindings != p.BindingSets[0] {
		t.Error("links not resolved to the decoded sections")
	}
	// WriteSpec orders the sections Shaders, Bindings, Assemblies,
	// MaterialConstants, Strings: the hand-made order.
	var buf bytes.Buffer
	if err := EncodeSpec(&buf, p, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), file) {
		t.Errorf("EncodeSpec differs from the hand-made file:\n% x\n% x", buf.Bytes(), file)
	}
	if d := DescribeTypeExt(specExt); d != "shader package (spec layout): vertex format hash 0x0807060504030201 / 0x0d0c0b0a, compatibility OpenGL|Vulkan, 2 constants" {
		t.Errorf("DescribeTypeExt = %q", d)
	}
}

// The Assembly follows the field table (Domain at 12, then Hull at 16), not
// the diagram (Hull before Domain).
func TestAssemblyFieldOrder(t *testing.T) {
	d, h := &SpecShader{Data: []byte("d")}, &SpecShader{Data: []byte("h")}
	p := &SpecPack{Shaders: []*SpecShader{d, h}, Assemblies: []*Assembly{{Driver: DriverDirectX, Domain: d, Hull: h}}}
	var buf bytes.Buffer
	if err := EncodeSpec(&buf, p, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	r := openBytes(t, buf.Bytes())
	data, err := r.Sections[2].Data()
	if err != nil {
		t.Fatal(err)
	}
	want := raw(uint8(1), uint8(0), uint16(0), uint32(0), uint32(0), uint32(1), uint32(2), uint32(0), uint32(0), uint32(0), uint32(0))
	if !bytes.Equal(data, want) {
		t.Errorf("Assembly bytes % x, want % x", data, want)
	}
	got, err := ReadSpec(r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Assemblies[0].Domain != got.Shaders[0] || got.Assemblies[0].Hull != got.Shaders[1] || got.Constants != nil {
		t.Errorf("read back %+v", got.Assemblies[0])
	}
}

func TestSpecReadErrors(t *testing.T) {
	with := func(edit func(s []sec) []sec) []byte { return container(t, 'S', specExt, edit(specSections())...) }
	set := func(i int, v []byte) func([]sec) []sec { return func(s []sec) []sec { s[i].data = v; return s } }
	asmWith := func(off int, v ...any) []byte {
		b := bytes.Clone(specAssembly)
		copy(b[off:], raw(v...))
		return b
	}
	ext := func(i int, v byte) [16]byte { e := specExt; e[i] = v; return e }
	for _, c := range []struct {
		name    string
		file    []byte
		section int
		off     int64
		msg     string
	}{
		{"type", container(t, 'P', specExt, specSections()...), -1, 3, "not a shader pack"},
		{"compat", container(t, 'S', ext(12, 0x16), specSections()...), -1, 36, "unknown compatibility flags 0x10"},
		{"reserved", container(t, 'S', ext(15, 1), specSections()...), -1, 39, "reserved byte 15"},
		{"no assembly", with(func(s []sec) []sec { return append(s[:3], s[4:]...) }), -1, 40, "no Assembly section"},
		{"two constants sections", with(func(s []sec) []sec { return append(s, sec{4, nil}) }), -1, 40 + 6*24, "second section of type 4"},
		{"assembly size", with(set(3, specAssembly[:35])), 3, 35, "Assembly of 35 bytes, want 36"},
		{"driver", with(set(3, asmWith(0, uint8(4)))), 3, 0, "unknown driver 4"},
		{"assembly reserved", with(set(3, asmWith(2, uint8(1)))), 3, 1, "Assembly Reserved"},
		{"vertex link missing", with(set(3, asmWith(8, uint32(7)))), 3, 8, "link 7 names section 6, the file has 6"},
		{"pixel link wrong type", with(set(3, asmWith(24, uint32(3)))), 3, 24, "link 3 names section 2 of type 3, want type 1"},
		{"bindings link wrong type", with(set(3, asmWith(32, uint32(1)))), 3, 32, "names section 0 of type 1, want type 3"},
		{"binding count", with(set(3, asmWith(28, uint32(3)))), 3, 28, "declares 3 bindings, its Bindings section holds 2"},
		{"bindings without section", with(set(3, asmWith(32, uint32(0)))), 3, 28, "declares 2 bindings, its Bindings section holds 0"},
		{"binding size", with(set(2, specBindings[:15])), 2, 8, "ends with 7 bytes"},
		{"binding stages", with(set(2, raw(uint32(0x20), uint8(0), uint8(0), uint16(0), specBindings[8:]))), 2, 0, "unknown stage flags 0x20"},
		{"binding type", with(set(2, raw(specBindings[:8], uint32(1), uint8(4), uint8(0), uint16(0)))), 2, 12, "binding 1 has unknown type 4"},
		{"binding reserved", with(set(2, raw(specBindings[:8], uint32(1), uint8(0), uint8(0), uint16(1)))), 2, 14, "binding 1 Reserved"},
		{"constants size", with(set(4, specConstants[:8])), 4, 8, "holds 8 bytes, the TypeExt's 2 constants need 16"},
		{"constants missing", with(func(s []sec) []sec { return append(s[:4], s[5]) }), -1, 37, "NumConstants is 2 but there is no MaterialConstants"},
		{"constant type", with(set(4, raw(specConstants[:8], uint32(6), uint8(22), uint8(0), uint16(0)))), 4, 12, "constant 1 has unknown type 22"},
		{"constant reserved", with(set(4, raw(specConstants[:8], uint32(6), uint8(0), uint8(1), uint16(0)))), 4, 13, "constant 1 Reserved"},
		{"no strings", with(func(s []sec) []sec { return s[:5] }), -1, 40, "no Strings section"},
		{"constant name", with(set(5, []byte("color"))), 4, 0, "constant name"},
	} {
		r, err := bpx.NewReader(bytes.NewReader(c.file), int64(len(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadSpec(r)
		checkFormatError(t, c.name, err, c.section, c.off, c.msg)
	}
}

func TestSpecValidate(t *testing.T) {
	sh := &SpecShader{}
	stray := &SpecShader{}
	asm := []*Assembly{{}}
	for _, c := range []struct {
		p   *SpecPack
		msg string
	}{
		{&SpecPack{}, "no Assembly"},
		{&SpecPack{Assemblies: []*Assembly{nil}}, "assembly 0 is nil"},
		{&SpecPack{Compatibility: 0x10, Assemblies: asm}, "unknown compatibility flags 0x10"},
		{&SpecPack{Assemblies: []*Assembly{{Driver: 4}}}, "unknown driver Driver(4)"},
		{&SpecPack{Shaders: []*SpecShader{sh}, Assemblies: []*Assembly{{Pixel: stray}}}, "links to a shader missing"},
		{&SpecPack{Assemblies: []*Assembly{{Bindings: &BindingSet{}}}}, "links to a binding set missing"},
		{&SpecPack{Assemblies: asm, BindingSets: []*BindingSet{{Bindings: []Binding{{Type: 4}}}}}, "unknown stage flags or type"},
		{&SpecPack{Assemblies: asm, BindingSets: []*BindingSet{{Bindings: []Binding{{Stages: -1}}}}}, "unknown stage flags or type"},
		{&SpecPack{Assemblies: asm, Constants: make([]Constant, 256)}, "256 constants"},
		{&SpecPack{Assemblies: asm, Constants: []Constant{{Type: 22}}}, "constant 0 has unknown type 22"},
		{&SpecPack{Assemblies: asm, Constants: []Constant{{Name: "\xff"}}}, "constant 0 name"},
	} {
		err := c.p.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("got %v, want %q", err, c.msg)
		}
		var buf bytes.Buffer
		if err := EncodeSpec(&buf, c.p, bpx.SectionOptions{}); err == nil || buf.Len() != 0 {
			t.Errorf("EncodeSpec of an invalid pack: %v, %d bytes", err, buf.Len())
		}
	}
}

// Links count the sections the caller created before WriteSpec.
func TestWriteSpecAfterOtherSections(t *testing.T) {
	p := specPack()
	var buf bytes.Buffer
	w := bpx.NewWriter(&buf)
	if _, err := w.CreateSection(0xFE, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSpec(w, p, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := openBytes(t, buf.Bytes())
	data, _ := r.Sections[4].Data()               // the Assembly, after 1 + 2 shaders + 1 binding set
	if v := le.Uint32(data[asmVertex:]); v != 3 { // shader 1 is section 2
		t.Errorf("vertex link %d, want 3", v)
	}
	got, err := ReadSpec(r)
	if err != nil || !reflect.DeepEqual(got, p) {
		t.Fatalf("read back: %v", err)
	}
}
