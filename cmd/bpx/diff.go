package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/pull"
	"github.com/gobpx/bpx/types/pack"
)

// diffFlags are the flags of "bpx diff".
type diffFlags struct {
	json, zero bool
	patch      string
	keyFlags
	linkFlag

	plan    *pull.Result // bpx diff URL LOCAL: what a pull would do,
	planErr error        // or why that is unknown
}

func setupDiff(fs *flag.FlagSet) func(*env, []string) int {
	var f diffFlags
	fs.BoolVar(&f.json, "json", false, "print a JSON array of {path, change}")
	fs.BoolVar(&f.zero, "0", false, "print names exact and end each line with a NUL instead of a newline")
	fs.StringVar(&f.patch, "patch", "", "also write the mod package `OUT.bpx` that turns A into B when layered over A (bpx unpack -L)")
	f.keyFlags.define(fs, "sign the --patch package with the secret key `SECRET` (see bpx sign)")
	f.linkFlag.define(fs)
	return f.run
}

// diffMarks are the line markers of "bpx diff".
var diffMarks = map[pack.ChangeOp]string{pack.Added: "+ ", pack.Removed: "- ", pack.Modified: "M "}

func (f *diffFlags) run(e *env, pos []string) int {
	if len(pos) != 2 {
		return e.usageError("want A B")
	}
	if f.zero && f.json {
		return e.usageError("-0 and --json do not go together")
	}
	if f.key != "" && f.patch == "" {
		return e.usageError("--key signs the --patch package: give --patch OUT.bpx")
	}
	s, err := f.signer(e)
	if err != nil {
		return f.trouble(e, err)
	}
	if f.urlLocal(pos) {
		// A launcher's check: when LOCAL already is the package at URL,
		// the plan says so from the head and the chunk digests (two
		// requests) before any table is read.
		if f.plan, f.planErr = pull.PlanURL(context.Background(), pos[0], pos[1], remoteOptions()); f.planErr == nil && f.plan.UpToDate {
			fmt.Fprintf(e.Stderr, "bpx diff: %s\n", planSummary(termsafe.Name(pos[1]), f.plan))
			if f.json {
				fmt.Fprintln(e.Stdout, "[]")
			}
			return exitOK
		}
	}
	var trees [2]fs.FS
	for i, name := range pos {
		t, closer, err := f.openTree(name)
		if err != nil {
			return f.trouble(e, f.hint(err))
		}
		defer closer()
		trees[i] = t
	}
	changes, err := f.diff(e, pos, trees)
	if err != nil {
		return f.trouble(e, err)
	}
	if f.patch != "" {
		opts := []pack.WriterOption{}
		if s.keys != nil {
			opts = append(opts, pack.WithSigningKey(s.keys...))
		}
		err := saveFile(f.patch, func(ctx context.Context, w io.Writer) error {
			pw := pack.NewWriter(w, append(opts, pack.WithContext(ctx))...)
			if err := pack.WritePatch(pw, trees[0], trees[1], changes); err != nil {
				pw.Close()
				return err
			}
			return pw.Close()
		})
		if err != nil {
			return f.trouble(e, err)
		}
	}
	for _, t := range trees {
		if s, ok := t.(*treeSnapshot); ok {
			s.noteSkipped(e, "compared")
		}
	}
	out := bufio.NewWriter(e.Stdout)
	if f.json {
		type entry struct {
			Path   string `json:"path"`
			Change string `json:"change"`
		}
		list := make([]entry, 0, len(changes))
		for _, c := range changes {
			list = append(list, entry{c.Name, c.Op.String()})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.Encode(list)
	} else {
		var line []byte
		for _, c := range changes {
			line = append(line[:0], diffMarks[c.Op]...)
			if f.zero {
				line = append(append(line, c.Name...), 0)
			} else {
				line = append(termsafe.AppendName(line, c.Name), '\n')
			}
			out.Write(line)
		}
	}
	if err := out.Flush(); err != nil {
		return f.trouble(e, err)
	}
	if len(changes) > 0 {
		return exitFail
	}
	return exitOK
}

// trouble reports err with diff(1)'s status for trouble, 2: 1 means the
// trees differ (or 130 or 143 when interrupted).
func (f *diffFlags) trouble(e *env, err error) int {
	if status := e.fail(err); status != exitFail {
		return status
	}
	return exitUsage
}

// underDir returns err, naming the entry of a *fs.PathError by its path
// under the directory dir that holds it rather than by its name inside
// the tree.
func underDir(err error, dir string) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !fs.ValidPath(pe.Path) {
		return err
	}
	return &fs.PathError{Op: pe.Op, Path: filepath.Join(dir, filepath.FromSlash(pe.Path)), Err: pe.Err}
}

// openTree opens a directory (listed as pack and add list it), a package
// file or a package URL as an fs.FS.
func (f *diffFlags) openTree(name string) (fs.FS, func(), error) {
	if !isURL(name) {
		fi, err := os.Stat(name)
		if err != nil {
			return nil, nil, err
		}
		if fi.IsDir() {
			s, err := snapshotTree(os.DirFS(name), []string{"."}, f.skipDangling)
			if err != nil {
				return nil, nil, underDir(err, name)
			}
			return s, func() {}, nil
		}
	}
	p, err := openPack(name)
	if err != nil {
		return nil, nil, err
	}
	return p.Package, func() { p.Close() }, nil
}

// diff compares the trees. A package URL against a local package is
// compared by object digests, reading no object, and listed as the update
// "bpx pull URL LOCAL" would make: from LOCAL to the package at URL ("+"
// what it adds, "-" what it removes); diff then says what the pull would
// fetch (on standard error: standard output keeps the list).
func (f *diffFlags) diff(e *env, pos []string, trees [2]fs.FS) ([]pack.Change, error) {
	pa, okA := trees[0].(*pack.Package)
	pb, okB := trees[1].(*pack.Package)
	if !okA || !okB || f.patch != "" || !isURL(pos[0]) || isURL(pos[1]) {
		return pack.Diff(trees[0], trees[1])
	}
	changes, err := pack.DiffDigests(pb, pa)
	if errors.Is(err, bpx.ErrUnsupported) {
		changes, err = pack.Diff(trees[1], trees[0])
	}
	if err != nil {
		return nil, err
	}
	if f.plan == nil && f.planErr == nil {
		f.plan, f.planErr = pull.PlanURL(context.Background(), pos[0], pos[1], remoteOptions())
	}
	if f.planErr != nil {
		fmt.Fprintf(e.Stderr, "bpx diff: what a pull would fetch is unknown: %s\n", termsafe.Message(f.planErr.Error()))
		return changes, nil
	}
	fmt.Fprintf(e.Stderr, "bpx diff: %s\n", planSummary(termsafe.Name(pos[1]), f.plan))
	return changes, nil
}

// urlLocal reports whether diff compares a package URL with a local
// package file (bpx diff URL LOCAL), and lists the update.
func (f *diffFlags) urlLocal(pos []string) bool {
	if f.patch != "" || !isURL(pos[0]) || isURL(pos[1]) {
		return false
	}
	fi, err := os.Stat(pos[1])
	return err == nil && fi.Mode().IsRegular()
}

// planSummary says what a pull would do.
func planSummary(local string, r *pull.Result) string {
	switch {
	case r.UpToDate:
		return "bpx pull would leave " + local + " as it is: it is the package"
	case r.Whole:
		return fmt.Sprintf("bpx pull would download the package whole, %s (it has no chunk digests)", formatBytes(r.Size))
	}
	return fmt.Sprintf("bpx pull would fetch %s and copy %s from %s", fetchFigures(r), formatBytes(r.Copied), local)
}
