package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
	"github.com/gobpx/bpx/types/pack"
)

// levelUsage is the help of the -l flag of pack and the editing commands.
const levelUsage = "compression level `fast|default|max`: default balances speed and size; max makes the smallest package (optimal parsing, 4 MiB sections) several times slower"

// levelValue is a bpx.Level as a flag whose help quotes its default, as
// for the string flag -c: (default "default").
type levelValue bpx.Level

func (l *levelValue) String() string     { return bpx.Level(*l).String() }
func (l *levelValue) Set(s string) error { return (*bpx.Level)(l).UnmarshalText([]byte(s)) }
func (l *levelValue) Get() any           { return l.String() }

// packFlags are the flags of "bpx pack".
type packFlags struct {
	out, comp, arch, platform, gen, meta string
	secSize, blockSize                   int64
	maxSections                          int
	level                                bpx.Level
	quiet, stable                        bool
	keyFlags
	linkFlag
}

func setupPack(fs *flag.FlagSet) func(*env, []string) int {
	var f packFlags
	fs.StringVar(&f.out, "o", "", "write the package to `OUT`, replaced atomically (default: the name of the directory DIR + .bpx, in the current directory)")
	fs.StringVar(&f.comp, "c", "xz", "compress the data sections with `xz|zstd|zlib|none`; zstd (for shipping a game) and zlib load faster, but the reference SDK cannot read them")
	fs.Var((*levelValue)(&f.level), "l", levelUsage)
	fs.Int64Var(&f.secSize, "section-size", 0, "target size of a data section, `N` bytes (default 1 MiB; 4 MiB with -l max)")
	fs.BoolVar(&f.stable, "stable-sections", false, "end sections and xz blocks where the files say, not where they fill up, so that packs of slightly different trees share all but the changed parts: for packages updated with bpx pull (smaller sections and blocks cost some compression)")
	fs.Int64Var(&f.blockSize, "block-size", -1, "the most data in one xz block of a section larger than it, `N` bytes (default 1 MiB; 4 MiB with -l max; 0: one block per section)")
	defineMaxSections(fs, &f.maxSections)
	fs.StringVar(&f.arch, "arch", pack.ArchAny.String(), "target architecture `A`: x86_64, aarch64, x86, armv7hl or any")
	fs.StringVar(&f.platform, "platform", pack.PlatformAny.String(), "target platform `P`: Linux, MacOS, Windows, Android or Any")
	fs.StringVar(&f.gen, "generator", pack.GeneratorGoBPX.String(), "two-character generator code `XY` stored in the TypeExt")
	fs.StringVar(&f.meta, "meta", "", "package metadata from the JSON `FILE`: an object, plain or typed JSON (which keeps exact widths)")
	fs.BoolVar(&f.quiet, "q", false, "no progress bar")
	f.keyFlags.define(fs, "sign the package with the secret key `SECRET` as it is packed (see bpx sign)")
	f.linkFlag.define(fs)
	return f.run
}

func (f *packFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want one DIR")
	}
	out := f.out
	if out == "" {
		var err error
		if out, err = defaultOut(pos[0]); err != nil {
			return e.fail(err)
		}
		if out == "" {
			return e.usageError("%s has no name to name the package after: give -o OUT", pos[0])
		}
	}
	opts := []pack.WriterOption{pack.WithLevel(f.level), pack.WithMetadataNames(), pack.WithMaxSections(f.maxSections)}
	if f.secSize != 0 {
		opts = append(opts, pack.WithSectionSize(f.secSize))
	}
	if f.stable {
		opts = append(opts, pack.WithStableSections())
	}
	if f.blockSize >= 0 {
		opts = append(opts, pack.WithBlockSize(f.blockSize))
	}
	switch strings.ToLower(f.comp) {
	case "xz":
		opts = append(opts, pack.WithCompression(bpx.CompressXZ))
	case "zlib":
		opts = append(opts, pack.WithCompression(bpx.CompressZlib))
	case "none":
		opts = append(opts, pack.WithCompression(bpx.CompressNone))
	case "zstd":
		opts = append(opts, pack.WithCompression(bpx.CompressZstd))
	default:
		return e.usageError("unknown compression %q", f.comp)
	}
	if len(f.gen) != 2 {
		return e.usageError("generator must be two bytes, got %q", f.gen)
	}
	ext := pack.TypeExt{Generator: pack.Generator{f.gen[0], f.gen[1]}}
	var found bool
	if ext.Arch, found = lookupCode(f.arch, pack.Arch.String); !found {
		return e.usageError("unknown architecture %q", f.arch)
	}
	if ext.Platform, found = lookupCode(f.platform, pack.Platform.String); !found {
		return e.usageError("unknown platform %q", f.platform)
	}
	var metadata *sd.Object
	if f.meta != "" {
		var err error
		if metadata, err = readMetadata(f.meta); err != nil {
			return e.fail(err)
		}
	}
	s, err := f.signer(e)
	if err != nil {
		return e.fail(err)
	}
	if s.keys != nil {
		opts = append(opts, pack.WithSigningKey(s.keys...))
	}
	dir := pos[0]
	if fi, err := os.Stat(dir); err != nil {
		return e.fail(err)
	} else if !fi.IsDir() {
		return e.fail(fmt.Errorf("%s is not a directory", dir))
	}
	// Listed before SaveFile creates the temporary file, without OUT.
	fsys, err := snapshotTree(os.DirFS(dir), []string{"."}, f.skipDangling, out)
	if err != nil {
		return e.fail(f.hint(err))
	}
	bar := newProgress(e, f.quiet, fsys.size, "packing")
	err = saveFile(out, func(ctx context.Context, w io.Writer) error {
		pw := pack.NewWriter(w, append(opts, pack.WithContext(ctx), pack.WithAddProgress(func(_ string, n int64) { bar.Add(n) }))...)
		pw.SetTypeExt(ext)
		if metadata != nil {
			if err := pw.SetMetadata(metadata); err != nil {
				pw.Close()
				return err
			}
		}
		if err := pw.AddFS(fsys); err != nil {
			pw.Close()
			return err
		}
		return pw.Close()
	})
	bar.Done()
	if err != nil {
		return e.fail(err)
	}
	fsys.noteSkipped(e, "packed")
	return exitOK
}

// defaultOut names the package of dir when -o is not given: the base name
// of dir's absolute path with .bpx, in the current directory, so that "."
// and ".." are named after the directories they stand for (not "..bpx").
// It is "" for a root directory, which has no name.
func defaultOut(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if abs == filepath.VolumeName(abs)+string(filepath.Separator) {
		return "", nil
	}
	return filepath.Base(abs) + ".bpx", nil
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
