package main

import (
	"errors"
	"flag"
	"io/fs"

	"github.com/gobpx/bpx/overlay"
	"github.com/gobpx/bpx/sign"
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

// openLayered opens the base package and the mods, and stacks them. With
// trusted keys (not nil), the base and every mod must be signed by one of
// them, and every byte read of them is checked (overlay.RequireSigned).
func openLayered(base string, mods []string, trusted *sign.KeyRing) (*layered, error) {
	l := &layered{}
	for i, name := range append([]string{base}, mods...) {
		ring := trusted
		if i > 0 && trusted != nil {
			// --name and --min-version are the base package's: each mod
			// has its own name.
			ring = trusted.Require(sign.Requirement{})
		}
		p, err := openTrusted(name, ring)
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
	stack := overlay.New
	if trusted != nil {
		stack = overlay.RequireSigned
	}
	ov, err := stack(layers...)
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
