package main

import (
	"bytes"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/shader"
	"github.com/gobpx/bpx/types/texture"
)

// writeFile writes b to a new file name in a temporary directory.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// infoSections runs bpx info --json on path and returns the section names
// by type, and the decoded output.
func infoSections(t *testing.T, path string) (map[uint8]string, infoJSON) {
	t.Helper()
	r := runBPX(t, nil, "info", "--json", path)
	if r.Code != exitOK {
		t.Fatalf("info --json: %+v", r)
	}
	var out infoJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("%v in %s", err, r.Stdout)
	}
	names := map[uint8]string{}
	for _, s := range out.Sections {
		names[s.Type] = s.Name
	}
	return names, out
}

// checkNames checks the section names bpx info gives, in JSON and as text
// ("0x02 object table").
func checkNames(t *testing.T, path string, want map[uint8]string) infoJSON {
	t.Helper()
	got, out := infoSections(t, path)
	text := runBPX(t, nil, "info", path)
	for typ, name := range want {
		if got[typ] != name {
			t.Errorf("%s: section type %#x named %q, want %q", filepath.Base(path), typ, got[typ], name)
		}
		if !strings.Contains(text.Stdout, sectionType(typ, name)+" ") {
			t.Errorf("%s: text lacks %q:\n%s", filepath.Base(path), sectionType(typ, name), text.Stdout)
		}
	}
	return out
}

// TestInfoNamesPackageSections: a package's object table, strings, data
// and metadata are named; a table section too.
func TestInfoNamesPackageSections(t *testing.T) {
	var buf bytes.Buffer
	w := pack.NewWriter(&buf)
	if fw, err := w.Create("a.txt"); err != nil {
		t.Fatal(err)
	} else if _, err := fw.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := w.SetMetadataValue(struct {
		Name string `sd:"name"`
	}{"m"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkNames(t, writeFile(t, "p.bpx", buf.Bytes()), map[uint8]string{
		pack.SectionObjectTable: "object table",
		pack.SectionStrings:     "strings",
		pack.SectionData:        "data",
		pack.SectionMetadata:    "metadata",
	})

	// Any type: the standard sections; unknown types unnamed.
	buf.Reset()
	cw := bpx.NewWriter(&buf)
	cw.SetType('Z')
	for _, typ := range []uint8{bpx.SectionTypeTable, bpx.SectionTypeStructuredData, bpx.SectionTypeStrings, 7} {
		if _, err := cw.CreateSection(typ, bpx.SectionOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "z.bpx", buf.Bytes())
	checkNames(t, path, map[uint8]string{
		bpx.SectionTypeTable:          "table",
		bpx.SectionTypeStructuredData: "structured data",
		bpx.SectionTypeStrings:        "strings",
	})
	if got, _ := infoSections(t, path); got[7] != "" {
		t.Errorf("section type 7 of type 'Z' named %q", got[7])
	}
}

// TestInfoNamesTextureAndModelSections: texture and model sections.
func TestInfoNamesTextureAndModelSections(t *testing.T) {
	tex, err := texture.FromImage(image.NewRGBA(image.Rect(0, 0, 4, 4)), texture.FormatRGBA)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := texture.Encode(&buf, tex, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	checkNames(t, writeFile(t, "t.bpx", buf.Bytes()), map[uint8]string{texture.SectionPixelArray: "pixel array"})

	indices := &model.IndexArray{Indices: []uint32{0, 1, 2}}
	m := &model.Model{
		VertexArrays: []*model.VertexArray{{VertexSize: model.PNUSize, Data: make([]byte, 3*model.PNUSize), Indices: indices}},
		IndexArrays:  []*model.IndexArray{indices},
	}
	buf.Reset()
	if err := model.Encode(&buf, m, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	checkNames(t, writeFile(t, "m.bpx", buf.Bytes()), map[uint8]string{
		model.SectionVertexArray: "vertex array",
		model.SectionIndexArray:  "index array",
	})
}

// TestInfoShaderPacks: the sections of both shader layouts are named, and
// the symbols of an SDK 4 pack are listed, as text and as JSON.
func TestInfoShaderPacks(t *testing.T) {
	p := &shader.Pack{
		Target: shader.TargetGL46,
		Type:   shader.TypePipeline,
		Symbols: []shader.Symbol{{
			Name: "Material", Type: shader.SymbolConstantBuffer, Register: shader.NoRegister,
			Flags:    shader.FlagVertexStage | shader.FlagPixelStage | shader.FlagExtendedData,
			Extended: sd.NewObject().Set("size", sd.Uint32(64)),
		}, {
			Name: "albedo", Type: shader.SymbolTexture, Register: 1, Flags: shader.FlagPixelStage | shader.FlagRegister,
		}},
		Shaders: []shader.Shader{{Stage: shader.StageVertex, Data: []byte("void main(){}")}},
	}
	var buf bytes.Buffer
	if err := shader.EncodePack(&buf, p); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "s.bpx", buf.Bytes())
	out := checkNames(t, path, map[uint8]string{
		shader.SectionShader:       "shader",
		shader.SectionSymbolTable:  "symbol table",
		shader.SectionExtendedData: "extended data",
		shader.SectionStrings:      "strings",
	})
	want := []symbolJSON{{Name: "Material", Type: "ConstantBuffer", Flags: "Vertex|Pixel|ExtendedData"}, {Name: "albedo", Type: "Texture", Flags: "Pixel|Register"}}
	if out.Shader == nil || out.Shader.Layout != "SDK 4" || len(out.Shader.Symbols) != 2 ||
		out.Shader.Symbols[0] != want[0] || out.Shader.Symbols[1] != want[1] {
		t.Errorf("shader: %+v", out.Shader)
	}
	r := runBPX(t, nil, "info", path)
	for _, line := range []string{
		"layout:    SDK 4\n",
		"symbols:   2\n",
		"\n  name        type            flags\n",
		"\n  \"Material\"  ConstantBuffer  Vertex|Pixel|ExtendedData\n",
		"\n  \"albedo\"    Texture         Pixel|Register\n",
	} {
		if !strings.Contains(r.Stdout, line) {
			t.Errorf("text lacks %q:\n%s", line, r.Stdout)
		}
	}

	vs := &shader.SpecShader{Data: []byte("vertex")}
	set := &shader.BindingSet{Bindings: []shader.Binding{{Stages: shader.LockPixelStage, Type: shader.BindingTexture}}}
	sp := &shader.SpecPack{
		Compatibility: shader.CompatVulkan,
		Shaders:       []*shader.SpecShader{vs},
		BindingSets:   []*shader.BindingSet{set},
		Assemblies:    []*shader.Assembly{{Driver: shader.DriverVulkan, Vertex: vs, Bindings: set}},
		Constants:     []shader.Constant{{Name: "albedo", Type: shader.ConstColorRGBA}},
	}
	buf.Reset()
	if err := shader.EncodeSpec(&buf, sp, bpx.SectionOptions{}); err != nil {
		t.Fatal(err)
	}
	out = checkNames(t, writeFile(t, "spec.bpx", buf.Bytes()), map[uint8]string{
		shader.SectionShader:            "shader",
		shader.SectionAssembly:          "assembly",
		shader.SectionBindings:          "bindings",
		shader.SectionMaterialConstants: "material constants",
		shader.SectionStrings:           "strings",
	})
	if out.Shader == nil || out.Shader.Layout != "spec" || out.Shader.Symbols != nil {
		t.Errorf("spec shader: %+v", out.Shader)
	}
}
