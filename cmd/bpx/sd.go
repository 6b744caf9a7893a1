package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

var sdCmd = &command{
	Name:    "sd",
	Summary: "print a structured-data (BPXSD) section as JSON",
	Usage:   "[-s N] [--typed] [--compact] [--names a,b,...] [--depth N] [--ref-budget] FILE",
}

func init() {
	sdCmd.Run = runSD
	register(sdCmd)
}

func runSD(e *env, args []string) int {
	c := sdCmd
	fs := c.newFlagSet(e)
	sec := fs.String("s", "", "0-based `index` of the section (default: the first of type 0xFE)")
	typed := fs.Bool("typed", false, "print the lossless typed JSON form (kinds, widths, NaN payloads, hashes)")
	compact := fs.Bool("compact", false, "print JSON on one line")
	depth := fs.Int("depth", sd.DefaultMaxDepth, "maximum nesting `depth` accepted")
	names := fs.String("names", "", "comma-separated candidate key `names`, to name keys stored without a __debug__ list")
	refBudget := fs.Bool("ref-budget", false, "also reject what the reference rejects (its max_depth 16 container budget)")
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(pos) != 1 {
		return c.usageError(e, "want one FILE")
	}
	if *depth < 1 {
		return c.usageError(e, "--depth wants a positive number, got %d", *depth)
	}
	file := pos[0]
	r, err := bpx.OpenReader(file)
	if err != nil {
		return c.fail(e, err)
	}
	defer r.Close()

	var s *bpx.Section
	if *sec == "" {
		if s = r.FindSection(bpx.SectionTypeStructuredData); s == nil {
			return c.fail(e, fmt.Errorf("%s: no structured-data section (type 0xFE); choose one with -s", file))
		}
	} else {
		if s, err = sectionByIndex(&r.Reader, file, *sec); err != nil {
			return c.fail(e, err)
		}
	}
	data, err := s.Data()
	if err != nil {
		return c.fail(e, err)
	}
	opts := sd.DecodeOptions{MaxDepth: *depth}
	if *refBudget {
		opts.ContainerBudget = sd.ReferenceMaxDepth
	}
	obj, err := opts.Decode(data)
	if err != nil {
		return c.fail(e, fmt.Errorf("%s: section %d: %w", file, s.Index, err))
	}
	if *names != "" {
		obj.ResolveNames(strings.Split(*names, ",")...)
	}
	var out []byte
	if *typed {
		out, err = sd.MarshalTypedJSON(obj)
	} else {
		out, err = obj.MarshalJSON()
	}
	if err != nil {
		return c.fail(e, fmt.Errorf("%s: section %d: %w", file, s.Index, err))
	}
	if !*compact {
		var buf bytes.Buffer
		if err := json.Indent(&buf, out, "", "  "); err != nil {
			return c.fail(e, err)
		}
		out = buf.Bytes()
	}
	out = append(out, '\n')
	if _, err := e.Stdout.Write(out); err != nil {
		return c.fail(e, err)
	}
	return exitOK
}
