package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

func init() {
	register(&command{
		Name:    "pack",
		Summary: "pack a directory into a package",
		Usage:   "[-o OUT] [-c xz|zlib|none] [--section-size N] [--arch A] [--platform P] [--generator XY] [--meta FILE.json] [-q] DIR",
		Run:     runPack,
	})
}

func runPack(e *env, args []string) int {
	boundMemory()
	c := commands["pack"]
	fs := c.newFlagSet(e)
	out := fs.String("o", "", "output package `file`, replaced atomically (default: DIR's name + .bpx)")
	comp := fs.String("c", "xz", "compression of data sections: xz (readable everywhere), zlib (fast; the reference SDK cannot read it) or none")
	fs.StringVar(comp, "z", "xz", "same as -c")
	secSize := fs.Int64("section-size", pack.DefaultSectionSize, "target data section size in `bytes`")
	arch := fs.String("arch", pack.ArchAny.String(), "target architecture: x86_64, aarch64, x86, armv7hl or any")
	platform := fs.String("platform", pack.PlatformAny.String(), "target platform: Linux, MacOS, Windows, Android or Any")
	gen := fs.String("generator", pack.GeneratorGoBPX.String(), "two-character generator code stored in TypeExt")
	meta := fs.String("meta", "", "package metadata from a JSON `file` (an object; typed JSON keeps exact widths)")
	quiet := fs.Bool("q", false, "no progress bar")
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(pos) != 1 {
		return c.usageError(e, "want one DIR")
	}
	if *out == "" {
		*out = filepath.Base(filepath.Clean(pos[0])) + ".bpx"
	}
	opts := []pack.WriterOption{pack.WithSectionSize(*secSize), pack.WithMetadataNames()}
	switch strings.ToLower(*comp) {
	case "xz":
		opts = append(opts, pack.WithCompression(bpx.CompressXZ))
	case "zlib":
		opts = append(opts, pack.WithCompression(bpx.CompressZlib))
	case "none":
		opts = append(opts, pack.WithCompression(bpx.CompressNone))
	default:
		return c.usageError(e, "unknown compression %q", *comp)
	}
	if len(*gen) != 2 {
		return c.usageError(e, "generator must be two bytes, got %q", *gen)
	}
	ext := pack.TypeExt{Generator: pack.Generator{(*gen)[0], (*gen)[1]}}
	var found bool
	if ext.Arch, found = lookupCode(*arch, pack.Arch.String); !found {
		return c.usageError(e, "unknown architecture %q", *arch)
	}
	if ext.Platform, found = lookupCode(*platform, pack.Platform.String); !found {
		return c.usageError(e, "unknown platform %q", *platform)
	}
	var metadata *sd.Object
	if *meta != "" {
		var err error
		if metadata, err = readMetadata(*meta); err != nil {
			return c.fail(e, err)
		}
	}
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
		pw := pack.NewWriter(w, opts...)
		pw.SetTypeExt(ext)
		if metadata != nil {
			if err := pw.SetMetadata(metadata); err != nil {
				pw.Close()
				return err
			}
		}
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

// lookupCode finds the code (0 to 4) whose name is name, ignoring case.
func lookupCode[T ~uint8](name string, str func(T) string) (T, bool) {
	for c := T(0); c <= 4; c++ {
		if strings.EqualFold(str(c), name) {
			return c, true
		}
	}
	return 0, false
}

// readMetadata reads package metadata from a JSON file: the lossless typed
// form when it parses as such, else plain JSON.
func readMetadata(name string) (*sd.Object, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if o, err := sd.UnmarshalTypedJSON(b); err == nil {
		return o, nil
	}
	o, err := sd.ObjectFromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return o, nil
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
	if err != nil || p.bar.w == nil {
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
