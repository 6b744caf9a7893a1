package shader_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/shader"
)

// A shader pack in the reference SDK 4 layout, written and read back after
// detecting its layout.
func Example() {
	p := &shader.Pack{
		AssemblyHash: sd.Hash("shaders/basic"),
		Target:       shader.TargetGL46,
		Type:         shader.TypePipeline,
		Symbols: []shader.Symbol{{
			Name:     "Material",
			Flags:    shader.FlagVertexStage | shader.FlagPixelStage | shader.FlagExtendedData,
			Type:     shader.SymbolConstantBuffer,
			Register: shader.NoRegister,
			Extended: sd.NewObject().Set("size", sd.Uint32(64)),
		}},
		Shaders: []shader.Shader{{Stage: shader.StageVertex, Data: []byte("#version 460\nvoid main(){}\n")}},
	}
	var file bytes.Buffer
	if err := shader.EncodePack(&file, p); err != nil {
		log.Fatal(err)
	}

	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	layout, err := shader.Detect(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("layout:", layout)
	back, err := shader.ReadPack(r)
	if err != nil {
		log.Fatal(err)
	}
	sym := back.Symbols[0]
	size, _ := sym.Extended.Get("size")
	n, _ := size.AsUint()
	fmt.Println(sym.Name, sym.Type, sym.Flags, n)
	fmt.Println(back.Shaders[0].Stage, len(back.Shaders[0].Data), "bytes")
	// Output:
	// layout: SDK 4
	// Material ConstantBuffer Vertex|Pixel|ExtendedData 64
	// Vertex 27 bytes
}

// A shader package in the spec's layout: one Vulkan assembly linking a vertex
// and a pixel shader and a binding set.
func ExampleEncodeSpec() {
	vs := &shader.SpecShader{Data: []byte("vertex SPIR-V")}
	ps := &shader.SpecShader{Data: []byte("pixel SPIR-V")}
	set := &shader.BindingSet{Bindings: []shader.Binding{{Stages: shader.LockPixelStage, Type: shader.BindingTexture, Register: 0}}}
	p := &shader.SpecPack{
		Compatibility: shader.CompatVulkan,
		Shaders:       []*shader.SpecShader{vs, ps},
		BindingSets:   []*shader.BindingSet{set},
		Assemblies:    []*shader.Assembly{{Driver: shader.DriverVulkan, Vertex: vs, Pixel: ps, Bindings: set}},
		Constants:     []shader.Constant{{Name: "albedo", Type: shader.ConstColorRGBA}},
	}
	var file bytes.Buffer
	if err := shader.EncodeSpec(&file, p, bpx.SectionOptions{Checksum: bpx.ChecksumCRC32}); err != nil {
		log.Fatal(err)
	}
	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(shader.DescribeTypeExt(r.Header.TypeExt))
	back, err := shader.ReadSpec(r)
	if err != nil {
		log.Fatal(err)
	}
	a := back.Assemblies[0]
	fmt.Println(a.Driver, string(a.Vertex.Data), string(a.Pixel.Data), a.Hull == nil, len(a.Bindings.Bindings), back.Constants[0].Name)
	// Output:
	// shader package (spec layout): vertex format hash 0x0000000000000000 / 0x00000000, compatibility Vulkan, 1 constants
	// Vulkan vertex SPIR-V pixel SPIR-V true 1 albedo
}

// The symbols of a pack, read without its shaders and without their
// extended data: what a listing shows, in memory bounded by the symbol
// count however large the Shader sections are.
func ExampleReadSymbols() {
	p := &shader.Pack{
		Target: shader.TargetVK12,
		Type:   shader.TypeAssembly,
		Symbols: []shader.Symbol{
			{Name: "Albedo", Flags: shader.FlagPixelStage | shader.FlagRegister, Type: shader.SymbolTexture, Register: 0},
			{Name: "Material", Flags: shader.FlagPixelStage | shader.FlagExtendedData, Type: shader.SymbolConstantBuffer,
				Register: shader.NoRegister, Extended: sd.NewObject().Set("size", sd.Uint32(64))},
		},
		Shaders: []shader.Shader{{Stage: shader.StagePixel, Data: make([]byte, 1<<20)}},
	}
	var file bytes.Buffer
	if err := shader.EncodePack(&file, p); err != nil {
		log.Fatal(err)
	}

	r, err := bpx.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()))
	if err != nil {
		log.Fatal(err)
	}
	syms, err := shader.ReadSymbols(r, shader.SkipExtendedData())
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range syms {
		fmt.Println(s.Name, s.Type, s.Flags, s.Extended == nil)
	}
	// Output:
	// Albedo Texture Pixel|Register true
	// Material ConstantBuffer Pixel|ExtendedData true
}
