package blk

import (
	"io"
	"math"
	"strconv"

	"github.com/gobpx/bpx/internal/jsonstr"
)

// JSONOption tunes WriteJSON.
type JSONOption func(*jsonWriter)

// MergeDuplicates makes WriteJSON put all entries of one block that share
// a name (params and blocks alike) into one array at the position of the
// first, as wt_blk's merge_fields does before its CLI prints JSON.
func MergeDuplicates() JSONOption { return func(j *jsonWriter) { j.merge = true } }

// WriteJSON writes b as wt_blk's JSON (serde_json pretty printing, no
// trailing newline), byte for byte:
//   - params first, then blocks, each as "name": value; the root is an
//     object without a key and an empty block is {};
//   - strings with JSON escaping (invalid UTF-8 replaced by U+FFFD); keys
//     are written unescaped, as wt_blk does (a key holding '"' or '\'
//     therefore yields invalid JSON);
//   - ints as integers; reals and vector components as the shortest
//     float32 form that always has a fraction or exponent (ryu: 5.0,
//     0.05, 1e-7), non-finite floats as null;
//   - matrices as 4 arrays of 3; colors as the 4 raw bytes in file order
//     (B, G, R, A: wt_blk's labels r, g, b, a are wrong).
//
// The JSON loses types and, with MergeDuplicates, the distinction between
// a repeated name and an array: use WriteTypedJSON for a lossless form.
func WriteJSON(w io.Writer, b *Block, opts ...JSONOption) error {
	var j jsonWriter
	for _, o := range opts {
		o(&j)
	}
	j.object(b, 0)
	_, err := w.Write(j.buf)
	return err
}

type jsonWriter struct {
	buf   []byte
	merge bool
}

func (j *jsonWriter) nl(level int) {
	j.buf = append(j.buf, '\n')
	for i := 0; i < level; i++ {
		j.buf = append(j.buf, ' ', ' ')
	}
}

// entry is one member of a block in output order: a param, a block, or
// (when merging) a group of same-named members.
type entry struct {
	name  string
	param *Value
	block *Block
	group []entry
}

func (j *jsonWriter) entries(b *Block) []entry {
	es := make([]entry, 0, len(b.Params)+len(b.Blocks))
	for i := range b.Params {
		es = append(es, entry{name: b.Params[i].Name, param: &b.Params[i].Value})
	}
	for _, c := range b.Blocks {
		es = append(es, entry{name: c.Name, block: c})
	}
	if !j.merge {
		return es
	}
	first := make(map[string]int, len(es))
	out := es[:0:0]
	for _, e := range es {
		if i, ok := first[e.name]; ok {
			if out[i].group == nil {
				out[i] = entry{name: e.name, group: []entry{out[i]}}
			}
			out[i].group = append(out[i].group, e)
			continue
		}
		first[e.name] = len(out)
		out = append(out, e)
	}
	return out
}

func (j *jsonWriter) object(b *Block, level int) {
	es := j.entries(b)
	if len(es) == 0 {
		j.buf = append(j.buf, '{', '}')
		return
	}
	j.buf = append(j.buf, '{')
	for i, e := range es {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.nl(level + 1)
		j.buf = append(j.buf, '"')
		j.buf = jsonstr.AppendLossy(j.buf, e.name)
		j.buf = append(j.buf, '"', ':', ' ')
		j.entry(e, level+1)
	}
	j.nl(level)
	j.buf = append(j.buf, '}')
}

func (j *jsonWriter) entry(e entry, level int) {
	switch {
	case e.group != nil:
		j.buf = append(j.buf, '[')
		for i, g := range e.group {
			if i > 0 {
				j.buf = append(j.buf, ',')
			}
			j.nl(level + 1)
			j.entry(g, level+1)
		}
		j.nl(level)
		j.buf = append(j.buf, ']')
	case e.block != nil:
		j.object(e.block, level)
	default:
		j.value(*e.param, level)
	}
}

// array writes n elements produced by elem, one per line.
func (j *jsonWriter) array(n, level int, elem func(i int)) {
	j.buf = append(j.buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.nl(level + 1)
		elem(i)
	}
	j.nl(level)
	j.buf = append(j.buf, ']')
}

func (j *jsonWriter) value(v Value, level int) {
	switch v.typ {
	case TypeString:
		j.buf = jsonstr.Append(j.buf, v.s, jsonstr.Serde)
	case TypeBool:
		j.buf = strconv.AppendBool(j.buf, v.Bool())
	case TypeInt:
		j.buf = strconv.AppendInt(j.buf, int64(v.Int()), 10)
	case TypeInt64:
		j.buf = strconv.AppendInt(j.buf, v.Int64(), 10)
	case TypeReal:
		j.buf = appendRyu32(j.buf, v.Real())
	case TypeColor:
		j.array(4, level, func(i int) { j.buf = strconv.AppendUint(j.buf, uint64(v.w[0]>>(8*i)&0xFF), 10) })
	case TypeMatrix:
		w, _ := v.raw()
		j.array(4, level, func(row int) {
			j.array(3, level+1, func(i int) { j.buf = appendRyu32(j.buf, math.Float32frombits(w[row*3+i])) })
		})
	case TypePoint2, TypePoint3, TypePoint4:
		w, n := v.raw()
		j.array(n, level, func(i int) { j.buf = appendRyu32(j.buf, math.Float32frombits(w[i])) })
	default: // ipoint2/3/4
		w, n := v.raw()
		j.array(n, level, func(i int) { j.buf = strconv.AppendInt(j.buf, int64(int32(w[i])), 10) })
	}
}

// appendRyu32 formats f as Rust's ryu crate does for f32 (serde_json):
// the shortest round-trip digits, laid out with a ".0" or an exponent;
// non-finite values become null, as serde_json writes them.
func appendRyu32(dst []byte, f float32) []byte {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		if math.Signbit(float64(f)) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], float64(f), 'e', -1, 32) // -d.ddde±XX
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	// Split digits and exponent.
	var digits [16]byte
	nd := 0
	i := 0
	for ; i < len(e) && e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	d := digits[:nd]
	kk := exp + 1 // 10^(kk-1) <= v < 10^kk
	k := kk - nd
	switch {
	case 0 <= k && kk <= 13:
		dst = append(dst, d...)
		for n := nd; n < kk; n++ {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	case 0 < kk && kk <= 13:
		dst = append(dst, d[:kk]...)
		dst = append(dst, '.')
		return append(dst, d[kk:]...)
	case -6 < kk && kk <= 0:
		dst = append(dst, '0', '.')
		for n := 0; n < -kk; n++ {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	case nd == 1:
		dst = append(dst, d[0], 'e')
		return strconv.AppendInt(dst, int64(kk-1), 10)
	default:
		dst = append(dst, d[0], '.')
		dst = append(dst, d[1:]...)
		dst = append(dst, 'e')
		return strconv.AppendInt(dst, int64(kk-1), 10)
	}
}
