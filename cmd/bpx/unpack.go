package main

import (
	"github.com/gobpx/bpx/types/pack"
)

func init() {
	register(&command{
		Name:    "unpack",
		Summary: "extract the objects of a package into a directory",
		Usage:   "[-C DIR] [-f] [--skip-invalid] [-j N] [-q] PACKAGE [PATH...]",
		Run:     runUnpack,
	})
}

func runUnpack(e *env, args []string) int {
	boundMemory()
	c := commands["unpack"]
	fs := c.newFlagSet(e)
	dir := fs.String("C", ".", "extract into `dir` (created if missing)")
	force := fs.Bool("f", false, "overwrite existing files (never through a symbolic link)")
	skip := fs.Bool("skip-invalid", false, "skip objects whose names are unsafe (.., absolute, duplicates) instead of refusing the package")
	quiet := fs.Bool("q", false, "no progress bar")
	jobs := fs.Int("j", 0, "objects written at the same time (default: two per CPU)")
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(pos) < 1 {
		return c.usageError(e, "want PACKAGE [PATH...]")
	}
	p, err := pack.Open(pos[0])
	if err != nil {
		return c.fail(e, err)
	}
	defer p.Close()
	var total int64
	for _, o := range p.Objects() {
		total += int64(o.Size)
	}
	bar := newProgress(e, *quiet, total, "unpacking")
	opts := []pack.UnpackOption{
		pack.WithPaths(pos[1:]...),
		pack.WithProgress(func(_ string, size int64) { bar.Add(size) }),
	}
	if *force {
		opts = append(opts, pack.Overwrite())
	}
	if *skip {
		opts = append(opts, pack.SkipInvalid())
	}
	if *jobs > 0 {
		opts = append(opts, pack.WithUnpackConcurrency(*jobs))
	}
	err = p.Unpack(*dir, opts...)
	bar.Done()
	if err != nil {
		return c.fail(e, err)
	}
	return exitOK
}
