package main

import (
	"flag"

	"github.com/gobpx/bpx/types/pack"
)

// unpackFlags are the flags of "bpx unpack".
type unpackFlags struct {
	dir                string
	force, skip, quiet bool
	jobs               int
	layers             layerList
	trusted            trustedFlag
}

func setupUnpack(fs *flag.FlagSet) func(*env, []string) int {
	var f unpackFlags
	fs.StringVar(&f.dir, "C", ".", "extract into `DIR` (created if missing)")
	fs.BoolVar(&f.force, "f", false, "overwrite existing files (never through a symbolic link)")
	fs.BoolVar(&f.skip, "skip-invalid", false, "skip objects whose names are unsafe (.., absolute, duplicates) instead of refusing the package")
	fs.BoolVar(&f.quiet, "q", false, "no progress bar")
	fs.IntVar(&f.jobs, "j", 0, "write `N` objects at the same time (default: two per CPU)")
	defineLayers(fs, &f.layers)
	f.trusted.define(fs, "the package and each -L mod")
	return f.run
}

func (f *unpackFlags) run(e *env, pos []string) int {
	if len(pos) < 1 {
		return e.usageError("want PACKAGE [PATH...]")
	}
	ring, err := f.trusted.ring()
	if err != nil {
		return e.fail(err)
	}
	p, err := openTrusted(pos[0], ring)
	if err != nil {
		return e.fail(err)
	}
	defer p.Close()
	if err := p.LoadTables(); err != nil {
		return e.fail(err)
	}
	var total int64
	for _, o := range p.Objects() {
		total += int64(o.Size)
	}
	bar := newProgress(e, f.quiet, total, "unpacking")
	opts := []pack.UnpackOption{
		pack.WithPaths(pos[1:]...),
		pack.WithProgress(func(_ string, size int64) { bar.Add(size) }),
	}
	if f.force {
		opts = append(opts, pack.Overwrite())
	}
	if f.skip {
		opts = append(opts, pack.SkipInvalid())
	}
	if f.jobs > 0 {
		opts = append(opts, pack.WithUnpackConcurrency(f.jobs))
	}
	if len(f.layers) > 0 {
		// What the game sees: the stack, written one file at a time.
		var l *layered
		if l, err = openLayered(pos[0], f.layers, ring); err == nil {
			// UnpackFS checks the object each selected name shows,
			// the top layer's, before it creates anything.
			err = pack.UnpackFS(f.dir, l.fs, opts...)
			l.Close()
		}
	} else {
		err = p.Unpack(f.dir, opts...)
	}
	bar.Done()
	if err != nil {
		return e.fail(err)
	}
	return exitOK
}
