package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/types/pack"
)

// diffFlags are the flags of "bpx diff".
type diffFlags struct {
	json  bool
	patch string
}

func setupDiff(fs *flag.FlagSet) func(*env, []string) int {
	var f diffFlags
	fs.BoolVar(&f.json, "json", false, "print a JSON array of {path, change}")
	fs.StringVar(&f.patch, "patch", "", "also write the mod package `OUT.bpx` that turns A into B when layered over A (bpx unpack -L)")
	return f.run
}

// diffMarks are the line markers of "bpx diff".
var diffMarks = map[pack.ChangeOp]string{pack.Added: "+ ", pack.Removed: "- ", pack.Modified: "M "}

func (f *diffFlags) run(e *env, pos []string) int {
	if len(pos) != 2 {
		return e.usageError("want A B")
	}
	var trees [2]fs.FS
	for i, name := range pos {
		t, closer, err := openTree(name)
		if err != nil {
			return f.trouble(e, err)
		}
		defer closer()
		trees[i] = t
	}
	changes, err := pack.Diff(trees[0], trees[1])
	if err != nil {
		return f.trouble(e, err)
	}
	if f.patch != "" {
		err := bpx.SaveFile(f.patch, func(w io.Writer) error {
			pw := pack.NewWriter(w)
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
		for _, c := range changes {
			fmt.Fprintf(out, "%s%s\n", diffMarks[c.Op], c.Name)
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
// trees differ.
func (f *diffFlags) trouble(e *env, err error) int {
	e.fail(err)
	return exitUsage
}

// openTree opens a directory, a package file or a package URL as an fs.FS.
func openTree(name string) (fs.FS, func(), error) {
	if !isURL(name) {
		fi, err := os.Stat(name)
		if err != nil {
			return nil, nil, err
		}
		if fi.IsDir() {
			return os.DirFS(name), func() {}, nil
		}
	}
	p, err := openPack(name)
	if err != nil {
		return nil, nil, err
	}
	return p.Package, func() { p.Close() }, nil
}
