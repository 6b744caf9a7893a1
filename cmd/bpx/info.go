package main

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/describe"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
)

// infoJSON is the output of "bpx info --json"; symbolJSON one symbol of a
// shader pack in it.
type (
	infoJSON   = describe.Info
	symbolJSON = describe.Symbol
)

// infoFlags are the flags of "bpx info".
type infoFlags struct{ json bool }

func setupInfo(fs *flag.FlagSet) func(*env, []string) int {
	var f infoFlags
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	return f.run
}

func (f *infoFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want exactly one FILE")
	}
	ra, size, closeInput, err := openInput(pos[0])
	if err != nil {
		return e.fail(err)
	}
	defer closeInput()
	r, err := bpx.NewReader(ra, size)
	if err != nil {
		return e.fail(&fs.PathError{Op: "open", Path: pos[0], Err: err})
	}
	sig := describe.InspectSignature(ra, size)
	if f.json {
		p := describe.OpenPackage(r)
		out := describe.Describe(r, p)
		if p != nil {
			p.Close()
		}
		out.Signature = sig
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return e.fail(err)
		}
		return exitOK
	}
	// Every line goes through termsafe: the file name is shown by its
	// rule, and what the describe package writes (an error that embeds
	// names from the file, say) has its control characters escaped.
	w := termsafe.NewWriter(e.Stdout)
	printInfo(w, pos[0], r)
	printSignature(w, sig)
	if p := describe.OpenPackage(r); p != nil {
		defer p.Close()
		fmt.Fprintf(w, "objects:   %d\n", len(p.Objects()))
		if dead, err := p.DeadBytes(); err == nil {
			fmt.Fprintf(w, "dead bytes: %d in data sections (bpx repack reclaims them)\n", dead)
		}
	}
	if si := describe.ReadShader(r); si != nil {
		si.WriteText(w)
	}
	return exitOK
}

func printInfo(w io.Writer, name string, r *bpx.Reader) {
	h := &r.Header
	tname := describe.TypeName(h.Type)
	if tname == "" {
		tname = "unknown type"
	}
	fmt.Fprintf(w, "file:      %s (%d bytes)\n", termsafe.Name(name), r.Size())
	fmt.Fprintf(w, "type:      %s (%s)\n", quoteType(h.Type), tname)
	if h.Version == bpx.VersionZstd {
		fmt.Fprintf(w, "version:   %d (%#x: version 2 with zstd sections, which only this module reads)\n", h.Version, h.Version)
	} else {
		fmt.Fprintf(w, "version:   %d\n", h.Version)
	}
	fmt.Fprintf(w, "checksum:  %#x\n", h.Checksum)
	fmt.Fprintf(w, "file size: %d\n", h.FileSize)
	fmt.Fprintf(w, "type ext:  %s\n", hex.EncodeToString(h.TypeExt[:]))
	if d := describe.TypeExt(h.Type, h.TypeExt); d != "" {
		fmt.Fprintf(w, "           %s\n", d)
	}
	fmt.Fprintf(w, "sections:  %d\n", len(r.Sections))
	if len(r.Sections) == 0 {
		return
	}
	names := describe.NewSectionNamer(r)
	fmt.Fprintf(w, "%6s  %-24s  %-16s  %10s  %10s  %10s  %10s\n", "index", "type", "flags", "pointer", "csize", "usize", "checksum")
	for _, s := range r.Sections {
		fmt.Fprintf(w, "%6d  %-24s  %-16s  %10d  %10d  %10d  %#10x\n",
			s.Index, sectionType(s.Type, names.Name(s.Type)), describe.FlagNames(s.Flags), s.Pointer, s.CSize, s.USize, s.Checksum)
	}
}

// printSignature prints who signed the file and whether it matches: one
// line, then one per signature with its key, which a player may add to
// their trusted keys after checking its ID with the author. Nothing when
// the file could not be read (nil).
func printSignature(w io.Writer, sig *describe.Signature) {
	if sig == nil {
		return
	}
	fmt.Fprintf(w, "signature: %s\n", sig.Summary)
	for _, k := range sig.Keys {
		fmt.Fprintf(w, "           %s\n", k.Key)
	}
}

func quoteType(t uint8) string {
	if s, ok := describe.TypeByte(t).(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%#02x", t)
}

// sectionType is t in hexadecimal, followed by its name n if any.
func sectionType(t uint8, n string) string {
	if n != "" {
		return fmt.Sprintf("%#02x %s", t, n)
	}
	return fmt.Sprintf("%#02x", t)
}
