package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/gobpx/bpx/types/pack"
)

func init() {
	register(&command{
		Name:    "ls",
		Summary: "list the objects of a package",
		Usage:   "[-l] [--json] PACKAGE",
		Run:     runLs,
	})
}

// lsEntry is one object in "bpx ls --json" output.
type lsEntry struct {
	Path    string `json:"path"`
	Size    uint64 `json:"size"`
	Start   uint32 `json:"start"`
	Offset  uint32 `json:"offset"`
	Invalid string `json:"invalid,omitempty"` // why unpack refuses the name
}

func runLs(e *env, args []string) int {
	collectLate()
	c := commands["ls"]
	fs := c.newFlagSet(e)
	long := fs.Bool("l", false, "long listing: size, start section, offset, name (a ! marks names unpack refuses)")
	asJSON := fs.Bool("json", false, "print a JSON array of objects")
	p, status := openPackageArg(c, e, fs, args)
	if p == nil {
		return status
	}
	defer p.Close()
	bad := p.InvalidPaths()
	out := bufio.NewWriterSize(e.Stdout, 64<<10)
	defer out.Flush()
	switch {
	case *asJSON:
		list := make([]lsEntry, 0, len(p.Objects()))
		for i, o := range p.Objects() {
			list = append(list, lsEntry{o.Name, o.Size, o.Start, o.Offset, bad[i]})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return c.fail(e, err)
		}
	case *long:
		for i, o := range p.Objects() {
			mark := " "
			if bad[i] != "" {
				mark = "!"
			}
			fmt.Fprintf(out, "%12d %6d %10d %s%s\n", o.Size, o.Start, o.Offset, mark, quoteName(o.Name, bad[i] != ""))
		}
	default:
		for i, o := range p.Objects() {
			fmt.Fprintln(out, quoteName(o.Name, bad[i] != ""))
		}
	}
	return exitOK
}

// quoteName prints a name that unpack refuses quoted, so that control
// characters, empty names and surrounding spaces are visible.
func quoteName(name string, invalid bool) string {
	if invalid {
		return fmt.Sprintf("%q", name)
	}
	return name
}

// openPackageArg parses args with fs and opens the one PACKAGE argument.
// On failure it returns nil and the exit status, having printed the problem.
func openPackageArg(c *command, e *env, fs *flag.FlagSet, args []string) (*pack.Package, int) {
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return nil, status
	}
	if len(pos) != 1 {
		return nil, c.usageError(e, "want one PACKAGE")
	}
	p, err := pack.Open(pos[0])
	if err != nil {
		return nil, c.fail(e, err)
	}
	return p, exitOK
}
