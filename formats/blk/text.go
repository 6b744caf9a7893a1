package blk

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
)

// TextOption tunes WriteText.
type TextOption func(*textWriter)

// LFLineEnds makes WriteText end lines with "\n" instead of the engine's
// "\r\n".
func LFLineEnds() TextOption { return func(t *textWriter) { t.eol = "\n" } }

// WriteText writes b in DagorEngine's canonical text syntax
// (DataBlock::writeText): "name:type=value" lines, 2-space indentation,
// CRLF line ends, a blank line between the params and the first block and
// between sibling blocks, "name{" headers and "name{}" for empty blocks,
// "yes"/"no" booleans, colors as "r, g, b, a", strings quoted to minimise
// escaping with "~" as the escape character. Keys that are not made of
// [A-Za-z0-9_.~-] are quoted, so directive names ("@override:x", ...) are
// written as the engine reads them; a block named "" is written as
// "@null"; a string param "@include" is written as an include line
// (unless empty: an include needs a file name).
// Repeated names are written one param per line, never as arrays. What
// WriteText writes, ParseText reads back to an equal tree (floats by bits,
// but every NaN reads back as the quiet NaN).
//
// Differences from the engine, all still readable by it: floats use the
// shortest form that reads back to the same float32 (the engine's %g keeps
// only 6 digits and so loses precision), NaN and infinities print as
// "nan", "inf" and "-inf", and a carriage return inside a string is
// always escaped as "~r" (the engine's reader drops a raw one in
// multi-line strings). The ipoint4 type (ip4) is written, although
// engine readers older than 2026 do not know its suffix.
//
// A tree that text cannot carry gives an error matching ErrEncode, and
// nothing is written: a NUL byte in a name or string (the engine's text
// ends at the first NUL), a sub-block named "@null" (the engine's reader
// takes that name, quoted or escaped, for the unnamed block's, so no
// spelling reads back as "@null"; the engine's own writer loses it),
// more than 65535 params or sub-blocks in one block, or blocks nested
// deeper than MaxDepth. Two params of one name but different types in
// one block are written, although the engine's text reader refuses them.
func WriteText(w io.Writer, b *Block, opts ...TextOption) error {
	t := textWriter{eol: "\r\n"}
	for _, o := range opts {
		o(&t)
	}
	if t.check(b, 0); t.err == nil {
		t.block(b, 0)
	}
	if t.err != nil {
		return t.err
	}
	_, err := w.Write(t.buf)
	return err
}

// MarshalText returns the canonical text of b (CRLF line ends).
func (b *Block) MarshalText() ([]byte, error) {
	var buf bytes.Buffer
	err := WriteText(&buf, b)
	return buf.Bytes(), err
}

type textWriter struct {
	buf []byte
	eol string
	err error // the first reason the tree cannot be written
}

// check records an error if text cannot carry block b.
func (t *textWriter) check(b *Block, level int) {
	switch {
	case t.err != nil:
	case level > MaxDepth:
		t.err = encodeErrf("text: blocks nested deeper than %d", MaxDepth)
	case len(b.Params) > maxBlockEntries || len(b.Blocks) > maxBlockEntries:
		t.err = encodeErrf("text: block %q has more than %d params or sub-blocks", b.Name, maxBlockEntries)
	case strings.IndexByte(b.Name, 0) >= 0:
		t.err = encodeErrf("text: NUL byte in the block name %q", b.Name)
	case level > 0 && b.Name == "@null":
		t.err = encodeErrf(`text: a block named "@null" would read back as the unnamed block ""`)
	default:
		for _, p := range b.Params {
			if strings.IndexByte(p.Name, 0) >= 0 || p.Value.typ == TypeString && strings.IndexByte(p.Value.s, 0) >= 0 {
				t.err = encodeErrf("text: NUL byte in the param %q", p.Name)
				return
			}
		}
	}
}

func (t *textWriter) indent(level int) {
	for i := 0; i < level*2; i++ {
		t.buf = append(t.buf, ' ')
	}
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '~' || c == '-'
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

func (t *textWriter) key(s string) {
	if isIdent(s) {
		t.buf = append(t.buf, s...)
	} else {
		t.buf = appendTextString(t.buf, s)
	}
}

// block writes the params and sub-blocks of b, which check has passed.
func (t *textWriter) block(b *Block, level int) {
	for _, p := range b.Params {
		t.indent(level)
		if p.Name == "@include" && p.Value.typ == TypeString && p.Value.s != "" {
			t.buf = append(t.buf, "include "...)
			t.buf = appendTextString(t.buf, p.Value.s)
			t.buf = append(t.buf, t.eol...)
			continue
		}
		t.key(p.Name)
		t.buf = append(t.buf, ':')
		t.buf = append(t.buf, p.Value.typ.Suffix()...)
		t.buf = append(t.buf, '=')
		t.buf = appendTextValue(t.buf, p.Value)
		t.buf = append(t.buf, t.eol...)
	}
	for i, c := range b.Blocks {
		if t.check(c, level+1); t.err != nil {
			return
		}
		if i == 0 && len(b.Params) > 0 {
			t.buf = append(t.buf, t.eol...)
		}
		t.indent(level)
		if c.Name == "" {
			t.key("@null")
		} else {
			t.key(c.Name)
		}
		if len(c.Params) == 0 && len(c.Blocks) == 0 {
			t.buf = append(t.buf, "{}"...)
		} else {
			t.buf = append(t.buf, '{')
			t.buf = append(t.buf, t.eol...)
			t.block(c, level+1)
			t.indent(level)
			t.buf = append(t.buf, '}')
		}
		t.buf = append(t.buf, t.eol...)
		if i != len(b.Blocks)-1 {
			t.buf = append(t.buf, t.eol...)
		}
	}
}

// appendTextString quotes s as the engine's writeStringValue does.
func appendTextString(dst []byte, s string) []byte {
	hasLn, hasQuot, hasTick := false, false, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r':
			hasLn = true
		case '"':
			hasQuot = true
		case '\'':
			hasTick = true
		}
	}
	quot := byte('"')
	multi := false
	switch {
	case hasLn && !hasQuot:
		multi = true
	case hasLn && !hasTick:
		multi, quot = true, '\''
	case hasLn:
		multi = true
	case hasQuot && !hasTick:
		quot = '\''
	}
	if multi {
		dst = append(dst, quot, quot, quot, '\n')
	} else {
		dst = append(dst, quot)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '~':
			dst = append(dst, '~', '~')
		case c == quot && (!multi || i+1 < len(s) && s[i+1] == c):
			dst = append(dst, '~', c)
		case c == '\r':
			dst = append(dst, '~', 'r')
		case c == '\n' && !multi:
			dst = append(dst, '~', 'n')
		case c == '\t':
			dst = append(dst, '~', 't')
		default:
			dst = append(dst, c)
		}
	}
	if multi {
		return append(dst, '\n', quot, quot, quot)
	}
	return append(dst, quot)
}

// appendTextFloat formats f like C's %g but with as many digits as it
// takes to read back the same float32.
func appendTextFloat(dst []byte, f float32) []byte {
	switch {
	case f != f:
		return append(dst, "nan"...)
	case math.IsInf(float64(f), 1):
		return append(dst, "inf"...)
	case math.IsInf(float64(f), -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, float64(f), 'g', -1, 32)
}

func appendTextValue(dst []byte, v Value) []byte {
	switch v.typ {
	case TypeString:
		return appendTextString(dst, v.s)
	case TypeBool:
		if v.Bool() {
			return append(dst, "yes"...)
		}
		return append(dst, "no"...)
	case TypeInt64:
		return strconv.AppendInt(dst, v.Int64(), 10)
	case TypeColor:
		c := v.Color()
		for i, x := range [4]uint8{c.R, c.G, c.B, c.A} {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = strconv.AppendUint(dst, uint64(x), 10)
		}
		return dst
	case TypeMatrix:
		w, _ := v.raw()
		dst = append(dst, '[')
		for row := 0; row < 4; row++ {
			if row > 0 {
				dst = append(dst, ' ')
			}
			dst = append(dst, '[')
			for j := 0; j < 3; j++ {
				if j > 0 {
					dst = append(dst, ", "...)
				}
				dst = appendTextFloat(dst, math.Float32frombits(w[row*3+j]))
			}
			dst = append(dst, ']')
		}
		return append(dst, ']')
	case TypeReal, TypePoint2, TypePoint3, TypePoint4:
		w, n := v.raw()
		for i, x := range w[:n] {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendTextFloat(dst, math.Float32frombits(x))
		}
		return dst
	default: // int, ipoint2/3/4
		w, n := v.raw()
		for i, x := range w[:n] {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = strconv.AppendInt(dst, int64(int32(x)), 10)
		}
		return dst
	}
}
