package shader

import (
	"errors"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// sec is one raw section for container.
type sec struct {
	typ  uint8
	data []byte
}

// container writes a container holding the raw sections with weak
// checksums, bypassing this package.
func container(t testing.TB, typ uint8, ext [16]byte, secs ...sec) []byte {
	t.Helper()
	out := make([]testbpx.Section, len(secs))
	for i, s := range secs {
		out[i] = testbpx.Section{Type: s.typ, Data: s.data}
	}
	return testbpx.Container(t, typ, ext, bpx.SectionOptions{Checksum: bpx.ChecksumWeak}, out...)
}

// raw assembles little-endian bytes.
var raw = testbpx.LE

// The hand-made spec-layout file: two shaders, one binding set, one Vulkan
// assembly using shader 1 (section 1) as vertex and shader 0 (section 0) as
// pixel stage, two constants.
var (
	specExt      = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 0xA, 0xB, 0xC, 0xD, 0x6, 2, 0, 0}
	specShader0  = []byte("pixel code")
	specShader1  = []byte("vertex code")
	specBindings = raw(uint32(0x11), uint8(0), uint8(2), uint16(0), uint32(0x1), uint8(2), uint8(0), uint16(0))
	specAssembly = raw(uint8(2), uint8(0), uint16(0), uint32(0x10000),
		uint32(2), uint32(0), uint32(0), uint32(0), uint32(1), // vertex, domain, hull, geometry, pixel
		uint32(2), uint32(3)) // 2 bindings in section 2
	specConstants = raw(uint32(0), uint8(17), uint8(0), uint16(0), uint32(6), uint8(0), uint8(0), uint16(0))
	specStrings   = []byte("color\x00gloss\x00")
)

func specSections() []sec {
	return []sec{{1, specShader0}, {1, specShader1}, {3, specBindings}, {2, specAssembly}, {4, specConstants}, {0xFF, specStrings}}
}

// specPack is what the hand-made spec file decodes to.
func specPack() *SpecPack {
	px, vx := &SpecShader{Data: specShader0}, &SpecShader{Data: specShader1}
	set := &BindingSet{Bindings: []Binding{{Stages: LockVertexStage | LockPixelStage, Type: BindingTexture, Register: 2}, {Stages: LockVertexStage, Type: BindingConstantBuffer}}}
	return &SpecPack{
		VertexFormatHash64: 0x0807060504030201, VertexFormatHash32: 0x0D0C0B0A, Compatibility: CompatOpenGL | CompatVulkan,
		Shaders:     []*SpecShader{px, vx},
		BindingSets: []*BindingSet{set},
		Assemblies:  []*Assembly{{Driver: DriverVulkan, MinVersion: 0x10000, Vertex: vx, Pixel: px, Bindings: set}},
		Constants:   []Constant{{Name: "color", Type: ConstColorRGBA}, {Name: "gloss", Type: ConstFloat}},
	}
}

// checkFormatError reports unless err is a *bpx.FormatError for section
// and offset off whose message contains msg.
func checkFormatError(t *testing.T, name string, err error, section int, off int64, msg string) {
	t.Helper()
	var fe *bpx.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, bpx.ErrFormat) {
		t.Errorf("%s: error %v is not a *bpx.FormatError", name, err)
		return
	}
	if fe.Section != section || fe.Offset != off || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v (section %d offset %d), want section %d offset %d %q", name, err, fe.Section, fe.Offset, section, off, msg)
	}
}
