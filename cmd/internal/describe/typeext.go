package describe

import (
	"fmt"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/shader"
	"github.com/gobpx/bpx/types/texture"
)

// typeExtDescribers decode the TypeExt of the BPX types bpx knows into
// one line.
var typeExtDescribers = map[uint8]func(ext [16]byte) string{
	bpx.TypePackage: describePackage,
	bpx.TypeTexture: texture.DescribeTypeExt,
	bpx.TypeModel:   model.DescribeTypeExt,
	bpx.TypeShader:  shader.DescribeTypeExt,
}

// TypeExt decodes the TypeExt ext of a container of type t into one line
// ("package: architecture x86_64, ..."), or returns "" when bpx does not
// know the type. A TypeExt that does not check says why in the line.
func TypeExt(t uint8, ext [16]byte) string {
	if d := typeExtDescribers[t]; d != nil {
		return d(ext)
	}
	return ""
}

func describePackage(ext [16]byte) string {
	t := pack.ParseTypeExt(ext)
	s := fmt.Sprintf("package: architecture %v, platform %v, generator %v", t.Arch, t.Platform, t.Generator)
	if err := t.Check(); err != nil {
		s += " (" + err.Error() + ")"
	}
	return s
}
