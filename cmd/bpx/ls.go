package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/gobpx/bpx/cmd/internal/termsafe"
	"github.com/gobpx/bpx/sign"
	"github.com/gobpx/bpx/types/pack"
)

// lsEntry is one object in "bpx ls --json" output.
type lsEntry struct {
	Path    string `json:"path"`
	Size    uint64 `json:"size"`
	Start   uint32 `json:"start"`
	Offset  uint32 `json:"offset"`
	Invalid string `json:"invalid,omitempty"` // why unpack refuses the name
}

// lsFlags are the flags of "bpx ls".
type lsFlags struct {
	long, json, zero bool
	layers           layerList
	trusted          trustedFlag
}

func setupLs(fs *flag.FlagSet) func(*env, []string) int {
	var f lsFlags
	fs.BoolVar(&f.long, "l", false, "long listing: size, start section, offset, name (a ! marks names unpack refuses)")
	fs.BoolVar(&f.zero, "0", false, "print names exact and end each line with a NUL instead of a newline, for xargs -0")
	fs.BoolVar(&f.json, "json", false, "print a JSON array of objects")
	defineLayers(fs, &f.layers)
	f.trusted.define(fs, "the package and each -L mod")
	return f.run
}

func (f *lsFlags) run(e *env, pos []string) int {
	if len(pos) != 1 && len(pos) != 2 {
		return e.usageError("want PACKAGE [DIR]")
	}
	if f.zero && f.json {
		return e.usageError("-0 and --json do not go together")
	}
	ring, err := f.trusted.ring()
	if err != nil {
		return e.fail(err)
	}
	if len(f.layers) > 0 {
		return f.runLayered(e, pos[0], pos[1:], ring)
	}
	p, err := openTrusted(pos[0], ring)
	if err != nil {
		return e.fail(err)
	}
	defer p.Close()
	if len(pos) == 2 {
		return f.listDir(e, p.Package, pos[1])
	}
	if err := p.LoadTables(); err != nil {
		return e.fail(err)
	}
	bad := p.InvalidPaths()
	out := bufio.NewWriterSize(e.Stdout, 64<<10)
	defer out.Flush()
	switch {
	case f.json:
		list := make([]lsEntry, 0, len(p.Objects()))
		for i, o := range p.Objects() {
			list = append(list, lsEntry{o.Name, o.Size, o.Start, o.Offset, bad[i]})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return e.fail(err)
		}
	case f.long:
		// Lines are appended to one scratch buffer: fmt.Fprintf would
		// allocate for every argument of every line.
		var line []byte
		if !f.zero { // -0 is for programs, which want records only
			fmt.Fprintf(out, "%12s %6s %10s  %s\n", "size", "start", "offset", "name")
		}
		for i, o := range p.Objects() {
			mark := byte(' ')
			if bad[i] != "" {
				mark = '!'
			}
			line = appendPadded(line[:0], o.Size, 12)
			line = appendPadded(append(line, ' '), uint64(o.Start), 6)
			line = appendPadded(append(line, ' '), uint64(o.Offset), 10)
			line = append(f.appendName(append(line, ' ', mark), o.Name, bad[i] != ""), f.end())
			out.Write(line)
		}
	default:
		var line []byte
		for i, o := range p.Objects() {
			line = append(f.appendName(line[:0], o.Name, bad[i] != ""), f.end())
			out.Write(line)
		}
	}
	return exitOK
}

// appendName appends name as ls prints it: exact with -0; else Go-quoted
// when unpack refuses it (so that an empty name or a trailing slash shows)
// or when termsafe says so, and as it is otherwise.
func (f *lsFlags) appendName(dst []byte, name string, refused bool) []byte {
	switch {
	case f.zero:
		return append(dst, name...)
	case refused:
		return strconv.AppendQuote(dst, name)
	}
	return termsafe.AppendName(dst, name)
}

// end is what ends a line of the listing: a NUL with -0, else a newline.
func (f *lsFlags) end() byte {
	if f.zero {
		return 0
	}
	return '\n'
}

// appendPadded appends v in decimal, right-aligned in width columns.
func appendPadded(b []byte, v uint64, width int) []byte {
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, d...)
}

// runLayered lists the files the stack of PACKAGE and the -L mods shows,
// in path order, or with dir (one at most) that directory of the stack:
// -l gives their sizes, --json path and size.
func (f *lsFlags) runLayered(e *env, base string, dir []string, trusted *sign.KeyRing) int {
	l, err := openLayered(base, f.layers, trusted)
	if err != nil {
		return e.fail(err)
	}
	defer l.Close()
	out := bufio.NewWriterSize(e.Stdout, 64<<10)
	defer out.Flush()
	if len(dir) == 1 {
		if err := f.listLayeredDir(out, l.fs, dir[0]); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	var list []layeredEntry
	var line []byte
	err = fs.WalkDir(l.fs, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !f.long && !f.json {
			line = append(f.appendName(line[:0], name, false), f.end())
			_, err := out.Write(line)
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if f.json {
			list = append(list, layeredEntry{name, info.Size()})
			return nil
		}
		line = appendPadded(line[:0], uint64(info.Size()), 12)
		line = append(f.appendName(append(line, ' ', ' '), name, false), f.end())
		_, err = out.Write(line)
		return err
	})
	if err == nil && f.json {
		if list == nil {
			list = []layeredEntry{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(list)
	}
	if err != nil {
		return e.fail(err)
	}
	return exitOK
}

// layeredEntry is one file in "bpx ls -L --json" output.
type layeredEntry struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// listLayeredDir lists directory dir of the layered tree fsys as listDir
// lists a package's: sorted by name, subdirectories with a trailing slash,
// -l with the files' sizes ("dir" for a subdirectory), --json with path
// and size.
func (f *lsFlags) listLayeredDir(out io.Writer, fsys fs.FS, dir string) error {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return err
	}
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	list := make([]layeredEntry, 0, len(ents))
	var line []byte
	for _, d := range ents {
		var size int64
		if !d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			size = fi.Size()
		}
		if f.json {
			en := layeredEntry{prefix + d.Name(), size}
			if d.IsDir() {
				en.Path += "/"
			}
			list = append(list, en)
			continue
		}
		line = line[:0]
		if f.long {
			if d.IsDir() {
				line = fmt.Appendf(line, "%12s", "dir")
			} else {
				line = appendPadded(line, uint64(size), 12)
			}
			line = append(line, ' ', ' ')
		}
		line = f.appendName(line, d.Name(), false)
		if d.IsDir() {
			line = append(line, '/')
		}
		if _, err := out.Write(append(line, f.end())); err != nil {
			return err
		}
	}
	if !f.json {
		return nil
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}

// listDir lists directory dir of p's tree, through its path index when it
// has one.
func (f *lsFlags) listDir(e *env, p *pack.Package, dir string) int {
	ents, err := p.ReadDir(dir)
	if err != nil {
		return e.fail(err)
	}
	out := bufio.NewWriterSize(e.Stdout, 64<<10)
	defer out.Flush()
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	if f.json {
		list := make([]lsEntry, 0, len(ents))
		for _, d := range ents {
			en := lsEntry{Path: prefix + d.Name()}
			if d.IsDir() {
				en.Path += "/"
			} else if fi, err := d.Info(); err == nil {
				if o, ok := fi.Sys().(*pack.Object); ok {
					en.Size, en.Start, en.Offset = o.Size, o.Start, o.Offset
				}
			}
			list = append(list, en)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	if f.long && !f.zero {
		fmt.Fprintf(out, "%12s %6s %10s  %s\n", "size", "start", "offset", "name")
	}
	var line []byte
	for _, d := range ents {
		line = line[:0]
		if f.long {
			if o, ok := dirObject(d); ok {
				line = appendPadded(line, o.Size, 12)
				line = appendPadded(append(line, ' '), uint64(o.Start), 6)
				line = appendPadded(append(line, ' '), uint64(o.Offset), 10)
			} else {
				line = fmt.Appendf(line, "%12s %6s %10s", "dir", "-", "-")
			}
			line = append(line, ' ', ' ')
		}
		line = f.appendName(line, d.Name(), false)
		if d.IsDir() {
			line = append(line, '/')
		}
		out.Write(append(line, f.end()))
	}
	return exitOK
}

// dirObject returns the object of a file entry of a package's tree.
func dirObject(d fs.DirEntry) (*pack.Object, bool) {
	if d.IsDir() {
		return nil, false
	}
	fi, err := d.Info()
	if err != nil {
		return nil, false
	}
	o, ok := fi.Sys().(*pack.Object)
	return o, ok
}
