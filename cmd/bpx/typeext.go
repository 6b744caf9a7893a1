package main

import (
	"io"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// typeCheckers check the type-level consistency of an opened container
// (a package's object table), for "bpx verify".
var typeCheckers = map[uint8]func(r *bpx.Reader) error{
	bpx.TypePackage: verifyPackage,
}

// verifyPackage checks what VerifyAll checks besides the sections, which
// verifyFile checks one by one (Package.VerifySection): the structure.
func verifyPackage(r *bpx.Reader) error {
	p, err := pack.New(r)
	if err != nil {
		return err
	}
	return p.VerifyStructure()
}

// openObject opens the object named path of the package file name; closing
// the result closes the package too.
func openObject(name, path string, trusted *sign.KeyRing) (io.ReadCloser, error) {
	p, err := openTrusted(name, trusted)
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
