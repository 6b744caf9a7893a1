package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sd"
)

// sdFlags are the flags of "bpx sd".
type sdFlags struct {
	section, names            string
	typed, compact, refBudget bool
	depth                     int
}

func setupSD(fs *flag.FlagSet) func(*env, []string) int {
	var f sdFlags
	fs.StringVar(&f.section, "s", "", "print section `N` (counting from 0; default: the first of type 0xFE)")
	fs.BoolVar(&f.typed, "typed", false, "print the lossless typed JSON form (kinds, widths, NaN payloads, hashes)")
	fs.BoolVar(&f.compact, "compact", false, "print JSON on one line")
	fs.IntVar(&f.depth, "depth", sd.DefaultMaxDepth, "accept nesting up to `N` levels deep")
	fs.StringVar(&f.names, "names", "", "name the keys of a section without a __debug__ list by trying the comma-separated names `a,b,...`")
	fs.BoolVar(&f.refBudget, "ref-budget", false, "also reject what the reference rejects (its max_depth 16 container budget)")
	return f.run
}

func (f *sdFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want one FILE")
	}
	if f.depth < 1 {
		return e.usageError("--depth wants a positive number, got %d", f.depth)
	}
	file := pos[0]
	r, err := openContainer(file)
	if err != nil {
		return e.fail(err)
	}
	defer r.Close()

	s, err := sectionOrFirst(r.Reader, file, f.section, bpx.SectionTypeStructuredData, "structured-data")
	if err != nil {
		return e.fail(err)
	}
	data, err := s.Data()
	if err != nil {
		return e.fail(err)
	}
	var opts []sd.DecodeOption
	if f.depth != 0 {
		opts = append(opts, sd.WithMaxDecodeDepth(f.depth))
	}
	if f.refBudget {
		opts = append(opts, sd.WithContainerBudget(sd.ReferenceMaxDepth))
	}
	obj, err := sd.Decode(data, opts...)
	if err != nil {
		return e.fail(fmt.Errorf("%s: section %d: %w", file, s.Index, err))
	}
	if f.names != "" {
		obj.ResolveNames(strings.Split(f.names, ",")...)
	}
	var out []byte
	if f.typed {
		out, err = sd.MarshalTypedJSON(obj)
	} else {
		out, err = obj.MarshalJSON()
	}
	if err != nil {
		return e.fail(fmt.Errorf("%s: section %d: %w", file, s.Index, err))
	}
	if !f.compact {
		var buf bytes.Buffer
		if err := json.Indent(&buf, out, "", "  "); err != nil {
			return e.fail(err)
		}
		out = buf.Bytes()
	}
	out = append(out, '\n')
	if _, err := e.Stdout.Write(out); err != nil {
		return e.fail(err)
	}
	return exitOK
}
