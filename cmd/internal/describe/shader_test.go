package describe

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/internal/testbpx"
)

// Describing the shader bomb of issue 23 (four xz Shader sections of
// 256 MiB of zeros, 16 MiB with -short) shows its symbols without
// decompressing the shaders:
// a few kilobytes of heap, not a gigabyte.
func TestReadShaderBomb(t *testing.T) {
	shaders, size := 4, int64(256<<20)
	if testing.Short() {
		size = 16 << 20 // as telling, and cheaper to build (-race)
	}
	file := testbpx.ShaderBomb(t, shaders, size)
	r, err := bpx.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	info := Describe(r, nil)
	runtime.ReadMemStats(&after)
	si := info.Shader
	if si == nil || si.Error != "" || si.Layout != "SDK 4" || len(si.Symbols) != 2 ||
		si.Symbols[0] != (Symbol{"a", "Texture", "Pixel|Internal|Register"}) || si.Symbols[1] != (Symbol{"b", "ConstantBuffer", "Vertex"}) {
		t.Errorf("shader info %+v", si)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<10 {
		t.Errorf("Describe allocated %d bytes for a %d-byte file with %d shaders of %d bytes", got, len(file), shaders, size)
	}
}
