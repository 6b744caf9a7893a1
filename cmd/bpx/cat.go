package main

import (
	"encoding/hex"
	"flag"
	"io"
)

// catFlags are the flags of "bpx cat".
type catFlags struct {
	section  string
	raw, hex bool
	layers   layerList
	trusted  trustedFlag
}

func setupCat(fs *flag.FlagSet) func(*env, []string) int {
	var f catFlags
	fs.StringVar(&f.section, "s", "", "write section `N` (counting from 0)")
	fs.BoolVar(&f.raw, "raw", false, "with -s: write the stored (possibly compressed) bytes, unverified")
	fs.BoolVar(&f.hex, "hex", false, "write a hex dump instead of the bytes")
	defineLayers(fs, &f.layers)
	f.trusted.define(fs, "the package, each -L mod, or the FILE of -s,")
	return f.run
}

func (f *catFlags) run(e *env, pos []string) int {
	ring, err := f.trusted.ring()
	if err != nil {
		return e.fail(err)
	}
	var src io.Reader
	switch {
	case f.section != "" && len(pos) == 1:
		var r *container
		if ring != nil {
			r, _, err = openSigned(pos[0], ring)
		} else {
			r, err = openContainer(pos[0])
		}
		if err != nil {
			return e.fail(err)
		}
		defer r.Close()
		s, err := sectionByIndex(r.Reader, pos[0], f.section)
		if err != nil {
			return e.fail(err)
		}
		if f.raw {
			src = s.OpenRaw()
		} else {
			rc, err := s.Open()
			if err != nil {
				return e.fail(err)
			}
			defer rc.Close()
			src = rc
		}
	case f.section == "" && len(pos) == 2 && !f.raw && len(f.layers) > 0:
		l, err := openLayered(pos[0], f.layers, ring)
		if err != nil {
			return e.fail(err)
		}
		defer l.Close()
		file, err := l.fs.Open(pos[1])
		if err != nil {
			return e.fail(err)
		}
		defer file.Close()
		src = file
	case f.section == "" && len(pos) == 2 && !f.raw:
		rc, err := openObject(pos[0], pos[1], ring)
		if err != nil {
			return e.fail(err)
		}
		defer rc.Close()
		src = rc
	default:
		return e.usageError("want -s N FILE, or PACKAGE PATH")
	}
	var dst io.Writer = e.Stdout
	var dumper io.WriteCloser
	if f.hex {
		dumper = hex.Dumper(e.Stdout)
		dst = dumper
	}
	if _, err := io.Copy(dst, src); err != nil {
		if dumper != nil {
			dumper.Close()
		}
		return e.fail(err)
	}
	if dumper != nil {
		dumper.Close()
	}
	return exitOK
}
