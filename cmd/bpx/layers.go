package main

import (
	"errors"
	"flag"
	"io/fs"

	"github.com/gobpx/bpx/overlay"
)

// layerList is a repeatable -L flag: mod packages layered over the base,
// each over the previous.
type layerList []string

func (l *layerList) String() string { return "" }

func (l *layerList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// defineLayers defines -L on fs.
func defineLayers(fs *flag.FlagSet, l *layerList) {
	fs.Var(l, "L", "layer the mod package `MOD.bpx` over PACKAGE (repeatable: each over the previous)")
}

// layered is a base package with mods layered over it.
type layered struct {
	fs   fs.FS
	pkgs []*packageFile
}

// openLayered opens the base package and the mods, and stacks them.
func openLayered(base string, mods []string) (*layered, error) {
	l := &layered{}
	for _, name := range append([]string{base}, mods...) {
		p, err := openPack(name)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.pkgs = append(l.pkgs, p)
	}
	layers := make([]fs.FS, len(l.pkgs))
	for i, p := range l.pkgs {
		layers[i] = p.Package
	}
	ov, err := overlay.New(layers...)
	if err != nil {
		l.Close()
		return nil, err
	}
	l.fs = ov
	return l, nil
}

// Close closes the packages.
func (l *layered) Close() error {
	var errs []error
	for _, p := range l.pkgs {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}
