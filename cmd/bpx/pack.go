package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

func init() {
	register(&command{
		Name:    "pack",
		Summary: "pack a directory into a package",
		Usage:   "-o OUT [-z xz|zlib|none] [-section-size N] [-generator XY] [-q] DIR",
		Run:     runPack,
	})
}

func runPack(e *env, args []string) int {
	boundMemory()
	c := commands["pack"]
	fs := c.newFlagSet(e)
	out := fs.String("o", "", "output package `file` (replaced atomically)")
	comp := fs.String("z", "xz", "compression of data sections: xz (readable everywhere), zlib (fast; the reference SDK cannot read it) or none")
	secSize := fs.Int64("section-size", pack.DefaultSectionSize, "target data section size in `bytes`")
	gen := fs.String("generator", pack.GeneratorGoBPX.String(), "two-character generator code stored in TypeExt")
	quiet := fs.Bool("q", false, "no progress bar")
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(pos) != 1 || *out == "" {
		return c.usageError(e, "want -o OUT and one DIR")
	}
	opts := &pack.WriterOptions{SectionSize: *secSize}
	switch strings.ToLower(*comp) {
	case "xz":
		opts.Compression = pack.XZ
	case "zlib":
		opts.Compression = pack.Zlib
	case "none":
		opts.Compression = pack.None
	default:
		return c.usageError(e, "unknown compression %q", *comp)
	}
	if len(*gen) != 2 {
		return c.usageError(e, "generator must be two bytes, got %q", *gen)
	}
	ext := pack.TypeExt{Arch: pack.ArchAny, Platform: pack.PlatformAny, Generator: pack.Generator{(*gen)[0], (*gen)[1]}}
	opts.TypeExt = &ext
	dir := pos[0]
	if fi, err := os.Stat(dir); err != nil {
		return c.fail(e, err)
	} else if !fi.IsDir() {
		return c.fail(e, fmt.Errorf("%s is not a directory", dir))
	}
	fsys := os.DirFS(dir)
	total, err := treeSize(fsys)
	if err != nil {
		return c.fail(e, err)
	}
	bar := newProgress(e, *quiet, total, "packing")
	err = bpx.SaveFile(*out, func(w io.Writer) error {
		pw := pack.NewWriter(w, opts)
		if err := pw.AddFS(progressFS{fsys, bar}); err != nil {
			pw.Close()
			return err
		}
		return pw.Close()
	})
	bar.Done()
	if err != nil {
		return c.fail(e, err)
	}
	return exitOK
}

// treeSize sums the sizes of the regular files under fsys.
func treeSize(fsys fs.FS) (int64, error) {
	var total int64
	err := fs.WalkDir(fsys, ".", func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			total += fi.Size()
		}
		return err
	})
	return total, err
}

// progressFS advances a progress bar as files are read.
type progressFS struct {
	fs.FS
	bar *progress
}

func (p progressFS) Open(name string) (fs.File, error) {
	f, err := p.FS.Open(name)
	if err != nil || p.bar.bar == nil {
		return f, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return progressFile{f, p.bar}, nil
	}
	return f, nil
}

type progressFile struct {
	fs.File
	bar *progress
}

func (f progressFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	f.bar.Add(int64(n))
	return n, err
}

// packMemoryLimit is the Go heap limit "bpx pack" and "bpx unpack" set
// unless GOMEMLIMIT is given: the garbage collector then keeps their peak
// RSS under about 56 MiB for a tree like $(go env GOROOT)/src.
const packMemoryLimit = 48 << 20

func boundMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(packMemoryLimit)
	}
}
