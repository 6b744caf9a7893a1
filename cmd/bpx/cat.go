package main

import (
	"encoding/hex"
	"fmt"
	"io"

	"github.com/gobpx/bpx"
)

var catCmd = &command{
	Name:    "cat",
	Summary: "write a section (-s N) or a package object (PACKAGE PATH) to stdout",
	Usage:   "-s N [--raw] [--hex] FILE | [--hex] PACKAGE PATH",
}

func init() {
	catCmd.Run = runCat
	register(catCmd)
}

// openPackageObject opens the object at path in the package file; it is set
// by the package integration (pack.go) and nil until then.
var openPackageObject func(file, path string) (io.ReadCloser, error)

func runCat(e *env, args []string) int {
	collectLate()
	c := catCmd
	fs := c.newFlagSet(e)
	sec := fs.String("s", "", "0-based `index` of the section to write")
	raw := fs.Bool("raw", false, "write the stored (possibly compressed) bytes, unverified")
	asHex := fs.Bool("hex", false, "write a hex dump instead of the bytes")
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	var src io.Reader
	switch {
	case *sec != "" && len(pos) == 1:
		r, err := bpx.OpenReader(pos[0])
		if err != nil {
			return c.fail(e, err)
		}
		defer r.Close()
		s, err := sectionByIndex(&r.Reader, pos[0], *sec)
		if err != nil {
			return c.fail(e, err)
		}
		if *raw {
			src = s.OpenRaw()
		} else {
			rc, err := s.Open()
			if err != nil {
				return c.fail(e, err)
			}
			defer rc.Close()
			src = rc
		}
	case *sec == "" && len(pos) == 2 && !*raw:
		if openPackageObject == nil {
			return c.fail(e, fmt.Errorf("%w: package objects", bpx.ErrUnsupported))
		}
		rc, err := openPackageObject(pos[0], pos[1])
		if err != nil {
			return c.fail(e, err)
		}
		defer rc.Close()
		src = rc
	default:
		return c.usageError(e, "want -s N FILE, or PACKAGE PATH")
	}
	var dst io.Writer = e.Stdout
	var dumper io.WriteCloser
	if *asHex {
		dumper = hex.Dumper(e.Stdout)
		dst = dumper
	}
	if _, err := io.Copy(dst, src); err != nil {
		if dumper != nil {
			dumper.Close()
		}
		return c.fail(e, err)
	}
	if dumper != nil {
		dumper.Close()
	}
	return exitOK
}
