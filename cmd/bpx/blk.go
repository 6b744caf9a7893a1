package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
)

// blkKinds are the names --kind takes; bbf is for reading only.
var blkKinds = map[string]blk.Kind{
	"bbf": blk.KindBBF, "fat": blk.KindFAT, "fat-zst": blk.KindFATZstd, "slim": blk.KindSlim,
	"slim-zst": blk.KindSlimZstd, "slim-zst-dict": blk.KindSlimZstdDict,
}

// blkInput is what --nm and --dict found for one run.
type blkInput struct {
	nmPath string
	dicts  []string
	nm     *blk.NameMap
	dict   [][]byte
}

// blkFlags are the flags of "bpx blk".
type blkFlags struct {
	in                       blkInput
	format, kind, out        string
	merge, lf, encode, toBPX bool
}

func setupBLK(fs *flag.FlagSet) func(*env, []string) int {
	f := &blkFlags{}
	fs.StringVar(&f.in.nmPath, "nm", "", "shared name map `FILE` for SLIM kinds")
	fs.Func("dict", "zstd dictionary `FILE` (may be repeated)", func(s string) error { f.in.dicts = append(f.in.dicts, s); return nil })
	fs.StringVar(&f.format, "format", "text", "print as `text|json|typed-json`: engine syntax, wt_blk's JSON or lossless typed JSON")
	fs.BoolVar(&f.merge, "merge", false, "json: merge duplicate names into arrays, as wt_blk's CLI does")
	fs.BoolVar(&f.lf, "lf", false, "text: end lines with LF instead of the engine's CRLF")
	fs.BoolVar(&f.encode, "encode", false, "write binary BLK of --kind instead of printing")
	fs.StringVar(&f.kind, "kind", "", "binary `KIND`: fat, fat-zst, slim, slim-zst, slim-zst-dict or (to read) bbf; "+
		"with --encode the kind to write (default fat), else read FILE as a body of that kind without its kind byte")
	fs.BoolVar(&f.toBPX, "to-bpx", false, "write a BPX container holding the tree as structured data")
	fs.StringVar(&f.out, "o", "", "write to `OUT` (- or none: standard output)")
	return f.run
}

func (f *blkFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want exactly one FILE, got %d", len(pos))
	}
	kindName := f.kind
	if kindName == "" {
		kindName = "fat"
	}
	kind, ok := blkKinds[kindName]
	switch {
	case !ok:
		return e.usageError("unknown --kind %q (want fat, fat-zst, slim, slim-zst, slim-zst-dict or bbf)", f.kind)
	case f.encode && kind == blk.KindBBF:
		return e.usageError("--encode cannot write the legacy kind bbf")
	case f.encode && f.toBPX:
		return e.usageError("--encode and --to-bpx exclude each other")
	case (f.encode || f.toBPX) && f.out == "":
		return e.usageError("--encode and --to-bpx need -o OUT")
	case !f.encode && !f.toBPX && f.format != "text" && f.format != "json" && f.format != "typed-json":
		return e.usageError("unknown --format %q", f.format)
	}
	in := &f.in
	data, err := readInput(e, pos[0])
	if err != nil {
		return e.fail(err)
	}
	var tree *blk.Block
	if f.kind != "" && !f.encode {
		tree, err = in.readBody(pos[0], kind, data)
	} else {
		tree, err = in.read(pos[0], data)
	}
	if err != nil {
		return e.fail(err)
	}
	var buf bytes.Buffer
	switch {
	case f.toBPX:
		err = blk.WriteBPX(&buf, tree)
	case f.encode:
		var opts []blk.Option
		if kind.Slim() {
			var nm *blk.NameMap
			if nm, err = in.nameMap(pos[0]); err == nil && kind == blk.KindSlimZstdDict {
				var d [][]byte
				if d, err = in.dictionaries(); err == nil {
					opts = append(opts, blk.WithDicts(d...))
				}
			}
			opts = append(opts, blk.WithNameMap(nm))
		}
		var enc *blk.Encoder
		if err == nil {
			enc, err = blk.NewEncoder(kind, opts...)
		}
		if err == nil {
			var b []byte
			b, err = enc.Encode(tree)
			buf.Write(b)
		}
	case f.format == "json":
		var opts []blk.JSONOption
		if f.merge {
			opts = append(opts, blk.MergeDuplicates())
		}
		err = blk.WriteJSON(&buf, tree, opts...)
	case f.format == "typed-json":
		err = blk.WriteTypedJSON(&buf, tree)
	default:
		var opts []blk.TextOption
		if f.lf {
			opts = append(opts, blk.LFLineEnds())
		}
		err = blk.WriteText(&buf, tree, opts...)
	}
	if err != nil {
		return e.fail(err)
	}
	if err := writeOutput(e, f.out, buf.Bytes()); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// readInput reads the named file, "-" meaning standard input.
func readInput(e *env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(e.Stdin)
	}
	return os.ReadFile(name)
}

func writeOutput(e *env, name string, data []byte) error {
	if name == "" || name == "-" {
		_, err := e.Stdout.Write(data)
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// read decodes data by its first bytes: a BPX container, binary BLK (kind
// bytes 0 to 5), typed JSON (a '{'), or BLK text.
func (in *blkInput) read(name string, data []byte) (*blk.Block, error) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
	switch {
	case bytes.HasPrefix(data, bpx.Magic[:]):
		return blk.ReadBPX(bytes.NewReader(data), int64(len(data)))
	case len(data) > 0 && data[0] <= byte(blk.KindSlimZstdDict):
		d, err := in.decoder(name, blk.Kind(data[0]))
		if err != nil {
			return nil, err
		}
		return d.Decode(data)
	case len(trimmed) > 0 && trimmed[0] == '{':
		return blk.ParseTypedJSON(data)
	}
	return blk.ParseText(data)
}

// readBody decodes data as a binary body of the given kind without its
// kind byte (--kind without --encode).
func (in *blkInput) readBody(name string, kind blk.Kind, data []byte) (*blk.Block, error) {
	d, err := in.decoder(name, kind)
	if err != nil {
		return nil, err
	}
	return d.DecodeBody(kind, data)
}

// decoder returns a decoder for kind, with the name map and dictionaries
// the kind needs.
func (in *blkInput) decoder(name string, kind blk.Kind) (*blk.Decoder, error) {
	var opts []blk.Option
	if kind.Slim() {
		nm, err := in.nameMap(name)
		if err != nil {
			return nil, err
		}
		opts = append(opts, blk.WithNameMap(nm))
	}
	if kind == blk.KindSlimZstdDict {
		dicts, err := in.dictionaries()
		if err != nil {
			return nil, err
		}
		opts = append(opts, blk.WithDicts(dicts...))
	}
	return blk.NewDecoder(opts...)
}

// nameMap loads --nm, or the file "nm" beside the input file.
func (in *blkInput) nameMap(input string) (*blk.NameMap, error) {
	if in.nm != nil {
		return in.nm, nil
	}
	if in.nmPath == "" {
		if input != "" && input != "-" {
			if cand := filepath.Join(filepath.Dir(input), "nm"); fileExists(cand) {
				in.nmPath = cand
			}
		}
		if in.nmPath == "" {
			return nil, fmt.Errorf("%w: pass --nm FILE (no \"nm\" beside the input)", blk.ErrNameMapRequired)
		}
	}
	data, err := os.ReadFile(in.nmPath)
	if err != nil {
		return nil, err
	}
	if in.nm, err = blk.ParseNameMap(data); err != nil {
		return nil, fmt.Errorf("name map %s: %w", in.nmPath, err)
	}
	return in.nm, nil
}

// dictionaries loads the --dict files, or the dictionary the name map
// names, found beside the name map.
func (in *blkInput) dictionaries() ([][]byte, error) {
	if in.dict != nil {
		return in.dict, nil
	}
	paths := in.dicts
	if len(paths) == 0 && in.nm != nil && in.nmPath != "" {
		if cand := filepath.Join(filepath.Dir(in.nmPath), in.nm.DictFileName()); fileExists(cand) {
			paths = []string{cand}
		}
	}
	if len(paths) == 0 {
		name := "the dictionary"
		if in.nm != nil {
			name = in.nm.DictFileName()
		}
		return nil, fmt.Errorf("%w: pass --dict FILE (%s not found beside the name map)", blk.ErrDictRequired, name)
	}
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		in.dict = append(in.dict, d)
	}
	return in.dict, nil
}

func fileExists(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && !fi.IsDir()
}
