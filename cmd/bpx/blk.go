package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/formats/blk"
)

var blkCmd = &command{
	Name:    "blk",
	Summary: "convert Dagor BLK data blocks: binary (all kinds), text, JSON, typed JSON, BPX",
	Usage: "[--nm FILE] [--dict FILE] [--format text|json|typed-json] [--merge] [--lf] [-o OUT] FILE\n" +
		"       bpx blk --encode [--kind fat|fat-zst|slim|slim-zst|slim-zst-dict] [--nm FILE] [--dict FILE] -o OUT FILE\n" +
		"       bpx blk --to-bpx -o OUT FILE\n" +
		"FILE may be binary BLK, BLK text, typed JSON or a BPX container written by --to-bpx; \"-\" reads standard input.\n" +
		"SLIM files need the shared name map: --nm, else the file \"nm\" beside FILE; the zstd\n" +
		"dictionary is found beside the nm under the name the nm gives when --dict is not set.",
}

func init() {
	blkCmd.Run = runBLK
	register(blkCmd)
}

var blkKinds = map[string]blk.Kind{
	"fat": blk.KindFAT, "fat-zst": blk.KindFATZstd, "slim": blk.KindSlim,
	"slim-zst": blk.KindSlimZstd, "slim-zst-dict": blk.KindSlimZstdDict,
}

// blkInput is what --nm and --dict found for one run.
type blkInput struct {
	nmPath string
	dicts  []string
	nm     *blk.NameMap
	dict   [][]byte
}

func runBLK(e *env, args []string) int {
	c := blkCmd
	fs := c.newFlagSet(e)
	var in blkInput
	fs.StringVar(&in.nmPath, "nm", "", "shared name map `FILE` for SLIM kinds")
	fs.Func("dict", "zstd dictionary `FILE` (repeatable)", func(s string) error { in.dicts = append(in.dicts, s); return nil })
	format := fs.String("format", "text", "output `format`: text (engine syntax), json (wt_blk's), typed-json (lossless)")
	merge := fs.Bool("merge", false, "json: merge duplicate names into arrays, as wt_blk's CLI does")
	lf := fs.Bool("lf", false, "text: end lines with LF instead of the engine's CRLF")
	encode := fs.Bool("encode", false, "write binary BLK (see --kind) instead of printing")
	kindName := fs.String("kind", "fat", "binary `kind` for --encode: fat, fat-zst, slim, slim-zst, slim-zst-dict")
	toBPX := fs.Bool("to-bpx", false, "write a BPX container holding the tree as structured data")
	out := fs.String("o", "", "output `FILE` (\"-\" or empty: standard output)")
	pos, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	if len(pos) != 1 {
		return c.usageError(e, "want exactly one FILE, got %d", len(pos))
	}
	kind, ok := blkKinds[*kindName]
	if !ok {
		return c.usageError(e, "unknown --kind %q", *kindName)
	}
	switch {
	case *encode && *toBPX:
		return c.usageError(e, "--encode and --to-bpx exclude each other")
	case (*encode || *toBPX) && *out == "":
		return c.usageError(e, "--encode and --to-bpx need -o OUT")
	case !*encode && !*toBPX && *format != "text" && *format != "json" && *format != "typed-json":
		return c.usageError(e, "unknown --format %q", *format)
	}
	data, err := readInput(e, pos[0])
	if err != nil {
		return c.fail(e, err)
	}
	tree, err := in.read(pos[0], data)
	if err != nil {
		return c.fail(e, err)
	}
	var buf bytes.Buffer
	switch {
	case *toBPX:
		err = blk.WriteBPX(&buf, tree)
	case *encode:
		enc := &blk.Encoder{Kind: kind}
		if kind.Slim() {
			if enc.NameMap, err = in.nameMap(pos[0]); err == nil && kind == blk.KindSlimZstdDict {
				var d [][]byte
				if d, err = in.dictionaries(); err == nil && len(d) > 0 {
					enc.Dict = d[0]
				}
			}
		}
		if err == nil {
			var b []byte
			b, err = enc.Encode(tree)
			buf.Write(b)
		}
	case *format == "json":
		err = blk.WriteJSON(&buf, tree, &blk.JSONOptions{Merge: *merge})
	case *format == "typed-json":
		err = blk.WriteTypedJSON(&buf, tree)
	default:
		err = blk.WriteText(&buf, tree, &blk.TextOptions{LF: *lf})
	}
	if err != nil {
		return c.fail(e, err)
	}
	if err := writeOutput(e, *out, buf.Bytes()); err != nil {
		return c.fail(e, err)
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
	case bytes.HasPrefix(data, bpx.Signature[:]):
		return blk.ReadBPX(bytes.NewReader(data), int64(len(data)))
	case len(data) > 0 && data[0] <= byte(blk.KindSlimZstdDict):
		kind := blk.Kind(data[0])
		d := &blk.Decoder{}
		if kind.Slim() {
			nm, err := in.nameMap(name)
			if err != nil {
				return nil, err
			}
			d.NameMap = nm
		}
		if kind == blk.KindSlimZstdDict {
			dicts, err := in.dictionaries()
			if err != nil {
				return nil, err
			}
			d.Dicts = dicts
		}
		return d.Decode(data)
	case len(trimmed) > 0 && trimmed[0] == '{':
		return blk.ParseTypedJSON(data)
	}
	return blk.ParseText(data)
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
