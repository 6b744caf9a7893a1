package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/types/pack"
)

// editFlags are the flags the editing commands share.
type editFlags struct {
	out, comp   string
	compact     bool
	level       bpx.Level
	maxSections int
	keyFlags
}

// define defines the shared flags; --compact only where it is a choice.
func (f *editFlags) define(fs *flag.FlagSet, compact bool) {
	fs.StringVar(&f.out, "o", "", "write the edited package to `OUT` instead of replacing PACKAGE (both atomically)")
	fs.StringVar(&f.comp, "c", "xz", "compress new and re-encoded data sections with `xz|zstd|zlib|none`")
	fs.Var((*levelValue)(&f.level), "l", levelUsage)
	defineMaxSections(fs, &f.maxSections)
	f.keyFlags.define(fs, "sign the edited package with the secret key `SECRET` (see bpx sign); without it, an edit removes the signature of a signed package")
	if compact {
		fs.BoolVar(&f.compact, "compact", false, "re-encode the data sections that hold dead bytes, without them")
	}
}

// edit runs fn on an Editor of the package name and saves the result,
// signed with --key; without it, a note says when the edit removed the
// signature of a signed package.
func (f *editFlags) edit(e *env, name string, fn func(ed *pack.Editor) error) int {
	c, ok := compressions[strings.ToLower(f.comp)]
	if !ok {
		return e.usageError("unknown compression %q", f.comp)
	}
	s, err := f.signer(e)
	if err != nil {
		return e.fail(err)
	}
	opts := []pack.WriterOption{pack.WithCompression(c), pack.WithLevel(f.level), pack.WithMaxSections(f.maxSections)}
	if s.keys != nil {
		opts = append(opts, pack.WithSigningKey(s.keys...))
	}
	out := f.out
	if out == "" {
		out = editTarget(name)
	}
	var editor *pack.Editor
	err = interruptible(func(ctx context.Context) error {
		return pack.EditFileTo(name, out, func(ed *pack.Editor) error {
			editor = ed
			if f.compact {
				ed.Compact()
			}
			return fn(ed)
		}, append(opts, pack.WithContext(ctx))...)
	})
	if err != nil {
		return e.fail(err)
	}
	if editor != nil && editor.SignatureRemoved() {
		noteUnsigned(e, name, out)
	}
	return exitOK
}

// noteUnsigned tells that the edit of the signed package name wrote out
// without a signature, and how to sign it again.
func noteUnsigned(e *env, name, out string) {
	what := termsafe.Name(name) + " was signed; the edit removed its signature, which would not match"
	if out != editTarget(name) {
		what = "the edited " + termsafe.Name(out) + " is not signed (the signature of " + termsafe.Name(name) + " would not match it)"
	}
	fmt.Fprintf(e.Stderr, "bpx %s: note: %s: sign it with bpx sign --key SECRET %s, or edit with --key SECRET\n",
		e.cmd.Name, what, termsafe.Name(out))
}

// editTarget is the file an edit of the package name replaces: name, or
// for a symbolic link the file it points to, so that the link is kept
// (bpx.SaveFile would replace the link itself with the edited file). A
// link that leads nowhere is left to opening the package to report.
func editTarget(name string) string {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(name); err == nil {
			return target
		}
	}
	return name
}

// defineMaxSections defines --max-sections, shared by pack and the
// editing commands.
func defineMaxSections(fs *flag.FlagSet, n *int) {
	fs.IntVar(n, "max-sections", bpx.ReferenceMaxSections, "keep the package within `N` sections, the most the reference SDK reads: data sections grow or are joined to fit (0: no limit)")
}

// compressions are the values of -c.
var compressions = map[string]bpx.Compression{"xz": bpx.CompressXZ, "zlib": bpx.CompressZlib, "none": bpx.CompressNone, "zstd": bpx.CompressZstd}

// addFlags are the flags of "bpx add".
type addFlags struct {
	editFlags
	linkFlag
	dir string
}

func setupAdd(fs *flag.FlagSet) func(*env, []string) int {
	var f addFlags
	f.editFlags.define(fs, true)
	f.linkFlag.define(fs)
	fs.StringVar(&f.dir, "C", ".", "take the PATHs relative to `DIR`, which names the objects")
	return f.run
}

func (f *addFlags) run(e *env, pos []string) int {
	if len(pos) < 2 {
		return e.usageError("want PACKAGE PATH...")
	}
	var names []string
	for _, p := range pos[1:] {
		name := filepath.ToSlash(filepath.Clean(p))
		if !fs.ValidPath(name) {
			return e.fail(fmt.Errorf("%s: not a path inside %s: %w", p, f.dir, pack.ErrInsecurePath))
		}
		names = append(names, name)
	}
	// Listed before the edit creates its temporary file, without the
	// package and OUT.
	root, err := snapshotTree(os.DirFS(f.dir), names, f.skipDangling, pos[0], f.out)
	if err != nil {
		return e.fail(f.hint(err))
	}
	code := f.edit(e, pos[0], func(ed *pack.Editor) error { return ed.AddFS(root, names...) })
	if code == exitOK {
		root.noteSkipped(e, "added")
	}
	return code
}

// rmFlags are the flags of "bpx rm".
type rmFlags struct{ editFlags }

func setupRm(fs *flag.FlagSet) func(*env, []string) int {
	var f rmFlags
	f.define(fs, true)
	return f.run
}

func (f *rmFlags) run(e *env, pos []string) int {
	if len(pos) < 2 {
		return e.usageError("want PACKAGE NAME...")
	}
	return f.edit(e, pos[0], func(ed *pack.Editor) error {
		for _, name := range pos[1:] {
			if err := ed.Remove(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// mvFlags are the flags of "bpx mv".
type mvFlags struct{ editFlags }

func setupMv(fs *flag.FlagSet) func(*env, []string) int {
	var f mvFlags
	f.define(fs, true)
	return f.run
}

func (f *mvFlags) run(e *env, pos []string) int {
	if len(pos) != 3 {
		return e.usageError("want PACKAGE OLD NEW")
	}
	return f.edit(e, pos[0], func(ed *pack.Editor) error { return ed.Rename(pos[1], pos[2]) })
}

// repackFlags are the flags of "bpx repack".
type repackFlags struct {
	editFlags
	all bool
}

func setupRepack(fs *flag.FlagSet) func(*env, []string) int {
	var f repackFlags
	f.define(fs, false)
	fs.BoolVar(&f.all, "all", false, "re-encode every data section with -c, not only those with dead bytes")
	return f.run
}

func (f *repackFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want one PACKAGE")
	}
	f.compact = true
	return f.edit(e, pos[0], func(ed *pack.Editor) error {
		if f.all {
			ed.Recompress()
		}
		return nil
	})
}
