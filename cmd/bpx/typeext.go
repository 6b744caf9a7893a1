package main

import (
	"fmt"
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/model"
	"github.com/gobpx/bpx/types/pack"
	"github.com/gobpx/bpx/types/shader"
	"github.com/gobpx/bpx/types/texture"
)

// Wiring of the type packages into info, verify and cat.
func init() {
	typeExtDescribers[bpx.TypePackage] = describePackage
	typeExtDescribers[bpx.TypeTexture] = texture.DescribeTypeExt
	typeExtDescribers[bpx.TypeModel] = model.DescribeTypeExt
	typeExtDescribers[bpx.TypeShader] = shader.DescribeTypeExt
	typeCheckers[bpx.TypePackage] = func(r *bpx.Reader) error {
		p, err := pack.New(r)
		if err != nil {
			return err
		}
		return p.Verify()
	}
	openPackageObject = openObject
}

func describePackage(ext [16]byte) string {
	t := pack.ParseTypeExt(ext)
	s := fmt.Sprintf("package: architecture %v, platform %v, generator %v", t.Arch, t.Platform, t.Generator)
	if err := t.Check(); err != nil {
		s += " (" + err.Error() + ")"
	}
	return s
}

// openObject opens the object named path of the package file name; closing
// the result closes the package too.
func openObject(name, path string) (io.ReadCloser, error) {
	p, err := pack.Open(name)
	if err != nil {
		return nil, err
	}
	f, err := p.Open(path)
	if err != nil {
		p.Close()
		return nil, err
	}
	return &closeBoth{f, p}, nil
}

type closeBoth struct {
	io.ReadCloser
	p *pack.Package
}

func (c *closeBoth) Close() error {
	err := c.ReadCloser.Close()
	if perr := c.p.Close(); err == nil {
		err = perr
	}
	return err
}
