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

// typeExtDescribers decode the TypeExt of the BPX types bpx knows into one
// line, for "bpx info".
var typeExtDescribers = map[uint8]func(ext [16]byte) string{
	bpx.TypePackage: describePackage,
	bpx.TypeTexture: texture.DescribeTypeExt,
	bpx.TypeModel:   model.DescribeTypeExt,
	bpx.TypeShader:  shader.DescribeTypeExt,
}

// typeCheckers check the type-level consistency of an opened container
// (a package's object table), for "bpx verify".
var typeCheckers = map[uint8]func(r *bpx.Reader) error{
	bpx.TypePackage: verifyPackage,
}

func verifyPackage(r *bpx.Reader) error {
	p, err := pack.New(r)
	if err != nil {
		return err
	}
	return p.Verify()
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
	p, err := openPack(name)
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
	p *packageFile
}

func (c *closeBoth) Close() error {
	err := c.ReadCloser.Close()
	if perr := c.p.Close(); err == nil {
		err = perr
	}
	return err
}
