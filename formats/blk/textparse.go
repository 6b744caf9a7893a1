package blk

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseText parses BLK text with the rules of DagorEngine's text parser
// (DataBlockParser in blk_parser.cpp), so that it reads the texts the
// engine reads (exceptions below):
//
//   - params "name:type=value" and blocks "name{...}"; blanks, line
//     breaks and comments may stand between the tokens, but a value must
//     start on the line of its "=" (a simple string's need not); a value
//     ends at a line break, ";", "}" or "//", or is quoted;
//   - names made of [A-Za-z0-9_.~-], or quoted; the type, too, may be
//     quoted; the types are t, i, r, b, c, m, p2, p3, p4, ip2, ip3, ip4 and
//     i64;
//   - strings in "..." or '...', or triple-quoted and multi-line, with "~"
//     as the escape character (~n, ~r, ~t; "~x" is x);
//   - "//" comments, nested "/* */" comments, and "/* */" inside a bare
//     value (there not nested, as in the engine);
//   - arrays "name:type[]=[v1; v2 ...]": values separated by ";" or line
//     breaks, each becoming one param "name" (the engine keeps no trace of
//     the array form, and neither does the tree);
//   - "include FILE" lines (FILE quoted or bare), kept as "@include"
//     string params and written back as include lines;
//   - simple strings "name=value", read as "name:t=value" (the engine's
//     allowSimpleString mode);
//   - a UTF-8 BOM at the start; the text ends at its first NUL byte, as in
//     the engine.
//
// Values are read as the engine reads them: ints in decimal (wrapping
// modulo 2^32, or 2^64 for i64) or "0x" hex; floats as fast_float reads
// them, "nan" and "inf" included; booleans yes/no/on/off/true/false/1/0
// in any case; colors "r, g, b" or "r, g, b, a" (r, g, b in 0..255, alpha
// defaulting to 255 and taken modulo 256); vector components separated by
// one comma with spaces around; matrices "[[a, b, c] [d, e, f] [g, h, i]
// [x, y, z]]". Like the engine, ParseText ignores what follows the last
// component of a vector, color or matrix. A block named "@null" gets the
// name "". Where the engine reads more loosely by accident, ParseText
// refuses: a decimal int without digits, such as "x", "-" or "+" (the
// engine reads "x" as the distance of 'x' from '0'). A bare "0x" is not
// one of those: the engine's parse_naive reads it as 0, and so does
// ParseText. Where the engine's DataBlock refuses a tree, ParseText
// still reads it: two params of one name but different types in a block.
//
// The engine's directives, quoted names such as "@override:name",
// "@override:name[2]", "@delete:name", "@delete-all:name", "@clone-last:name",
// "@override-last" and "@delete-last", are kept as data: params and blocks
// with those names, in their order, written back as they were read. They
// are not applied, because a directive may act on what an include brings
// or on the file a patch is applied to, which this package does not see.
// As in the engine, an array cannot have a directive name.
//
// One form is refused with an error matching ErrUnsupported: an include
// that follows a sub-block in the same block. The tree keeps a block's
// params (the include among them) before its sub-blocks, so writing the
// tree back would move the included text before that sub-block, and with
// it the blocks it defines.
//
// Malformed text gives a *FormatError naming the line, the column (in
// bytes, from 1) and the byte offset. A block holds at most 65535 params
// and 65535 sub-blocks, as in the engine, and blocks nest at most
// MaxDepth deep.
func ParseText(text []byte) (*Block, error) {
	s := string(text)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	p := &textParser{s: s}
	if strings.HasPrefix(s, "\xEF\xBB\xBF") {
		p.pos = 3
	}
	root := &Block{}
	if err := p.block(root, 0); err != nil {
		return nil, err
	}
	return root, nil
}

type textParser struct {
	s   string
	pos int
}

// textLineCol returns the 1-based line and byte column of offset pos.
func textLineCol(s string, pos int) (line, col int) {
	pos = min(max(pos, 0), len(s))
	line = 1 + strings.Count(s[:pos], "\n")
	return line, pos - strings.LastIndexByte(s[:pos], '\n')
}

// errAt returns a *FormatError for the text at offset pos.
func (p *textParser) errAt(pos int, format string, args ...any) error {
	line, col := textLineCol(p.s, pos)
	return &FormatError{Offset: int64(pos), In: "text", Line: line, Column: col, What: fmt.Sprintf(format, args...)}
}

func (p *textParser) eof() bool { return p.pos >= len(p.s) }

// skipWhite skips blanks and comments, and line breaks when nl is set.
// Without nl it stops at a line break, but a "//" comment takes the
// first line-break byte with it, as in the engine.
func (p *textParser) skipWhite(nl bool) error {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', 0x1A:
			p.pos++
		case '\r', '\n':
			if !nl {
				return nil
			}
			p.pos++
		case '/':
			if p.pos+1 >= len(p.s) {
				return nil
			}
			switch p.s[p.pos+1] {
			case '/':
				i := p.pos + 2
				for i < len(p.s) && p.s[i] != '\r' && p.s[i] != '\n' {
					i++
				}
				p.pos = min(i+1, len(p.s))
			case '*':
				if err := p.skipComment(); err != nil {
					return err
				}
			default:
				return nil
			}
		default:
			return nil
		}
	}
	return nil
}

// skipComment skips a (nestable) C comment at p.pos.
func (p *textParser) skipComment() error {
	start := p.pos
	depth := 0
	for p.pos+1 < len(p.s) {
		switch {
		case p.s[p.pos] == '/' && p.s[p.pos+1] == '*':
			depth++
			p.pos += 2
		case p.s[p.pos] == '*' && p.s[p.pos+1] == '/':
			depth--
			p.pos += 2
			if depth == 0 {
				return nil
			}
		default:
			p.pos++
		}
	}
	return p.errAt(start, "unexpected end of text inside a comment")
}

func (p *textParser) block(b *Block, depth int) error {
	if depth > MaxDepth {
		return p.errAt(p.pos, "blocks nested deeper than %d", MaxDepth)
	}
	for {
		if err := p.skipWhite(true); err != nil {
			return err
		}
		if p.eof() {
			if depth > 0 {
				return p.errAt(p.pos, "unexpected end of text, '}' missing")
			}
			return nil
		}
		if p.s[p.pos] == '}' {
			if depth == 0 {
				return p.errAt(p.pos, "unexpected '}' in the top block")
			}
			p.pos++
			return nil
		}
		nameAt := p.pos
		name, err := p.name("a name")
		if err != nil {
			return err
		}
		if err := p.skipWhite(true); err != nil {
			return err
		}
		if p.eof() {
			return p.errAt(p.pos, "unexpected end of text after %q", name)
		}
		switch c := p.s[p.pos]; {
		case c == '{':
			p.pos++
			if len(b.Blocks) >= maxBlockEntries {
				return p.tooMany(nameAt, "sub-blocks")
			}
			if name == "@null" {
				name = ""
			}
			if err := p.block(b.AddBlock(name), depth+1); err != nil {
				return err
			}
		case c == ':':
			p.pos++
			if err := p.param(b, name, nameAt); err != nil {
				return err
			}
		case c == '=':
			// A simple string, "name=value" (allowSimpleString): the
			// value may start on a later line.
			p.pos++
			if err := p.skipWhite(true); err != nil {
				return err
			}
			if p.eof() {
				return p.errAt(p.pos, "unexpected end of text, value of %q missing", name)
			}
			v, err := p.value()
			if err != nil {
				return err
			}
			if err := p.add(b, name, Str(v), nameAt); err != nil {
				return err
			}
		case strings.EqualFold(name, "include"):
			at := p.pos
			v, err := p.value()
			if err != nil {
				return err
			}
			if v == "" {
				return p.errAt(at, "include without a file name")
			}
			if err := p.add(b, "@include", Str(v), nameAt); err != nil {
				return err
			}
		default:
			return p.errAt(p.pos, "expected '{', ':' or '=' after %q, found %q", name, c)
		}
	}
}

func (p *textParser) tooMany(at int, what string) error {
	err := p.errAt(at, "more than %d %s in one block", maxBlockEntries, what).(*FormatError)
	err.Err = ErrTooLarge
	return err
}

// add appends a param to b, within the engine's limits.
func (p *textParser) add(b *Block, name string, v Value, at int) error {
	if len(b.Params) >= maxBlockEntries {
		return p.tooMany(at, "params")
	}
	if name == "@include" && v.typ == TypeString && v.s != "" && len(b.Blocks) > 0 {
		line, col := textLineCol(p.s, at)
		return fmt.Errorf("%w: include at line %d:%d (offset %d) follows the block %q: "+
			"the tree keeps params before blocks, so writing it back would move the included text before that block",
			ErrUnsupported, line, col, at, b.Blocks[len(b.Blocks)-1].Name)
	}
	b.Params = append(b.Params, Param{name, v})
	return nil
}

// name reads a bare or quoted name at p.pos (the engine's getIdent).
func (p *textParser) name(what string) (string, error) {
	if p.eof() {
		return "", p.errAt(p.pos, "expected %s, found the end of the text", what)
	}
	if c := p.s[p.pos]; c == '"' || c == '\'' {
		return p.quoted()
	}
	start := p.pos
	for p.pos < len(p.s) && isIdentChar(p.s[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		if p.s[p.pos] == '@' {
			return "", p.errAt(p.pos, "expected %s, found '@' (directive names such as \"@override:x\" must be quoted)", what)
		}
		return "", p.errAt(p.pos, "expected %s, found %q", what, p.s[p.pos])
	}
	return p.s[start:p.pos], nil
}

// value reads a quoted or bare value at p.pos (the engine's getValue).
func (p *textParser) value() (string, error) {
	if p.pos < len(p.s) && (p.s[p.pos] == '"' || p.s[p.pos] == '\'') {
		return p.quoted()
	}
	return p.bare()
}

// quoted reads a quoted string at p.pos, with "~" escapes, then blanks
// and an optional ';'.
func (p *textParser) quoted() (string, error) {
	start := p.pos
	q := p.s[p.pos]
	p.pos++
	multi := p.pos+1 < len(p.s) && p.s[p.pos] == q && p.s[p.pos+1] == q
	if multi {
		p.pos += 2
		// Skip the first line break, when only blanks precede it.
		for i := p.pos; i < len(p.s); i++ {
			if p.s[i] == '\n' {
				p.pos = i + 1
				break
			}
			if p.s[i] != ' ' && p.s[i] != '\r' && p.s[i] != '\t' {
				break
			}
		}
	}
	var buf []byte // used once an escape or a dropped '\r' is met
	seg := p.pos
	for {
		if p.pos >= len(p.s) {
			return "", p.errAt(start, "unclosed string")
		}
		c := p.s[p.pos]
		switch {
		case c == q && (!multi || p.pos+2 < len(p.s) && p.s[p.pos+1] == q && p.s[p.pos+2] == q):
			v := p.s[seg:p.pos]
			if buf != nil {
				v = string(append(buf, v...))
			}
			if multi {
				if len(v) > 1 && v[len(v)-1] == '\n' {
					v = v[:len(v)-1]
				}
				p.pos += 3
				if err := p.skipWhite(true); err != nil {
					return "", err
				}
			} else {
				p.pos++
				for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == 0x1A) {
					p.pos++
				}
			}
			if p.pos < len(p.s) && p.s[p.pos] == ';' {
				p.pos++
			}
			return v, nil
		case c == '\r' || c == '\n':
			if !multi {
				return "", p.errAt(start, "unclosed string (line break inside \"...\": use ~n or \"\"\"...\"\"\")")
			}
			if c == '\r' { // dropped, as by the engine
				buf = append(buf, p.s[seg:p.pos]...)
				seg = p.pos + 1
			}
			p.pos++
		case c == '~':
			buf = append(buf, p.s[seg:p.pos]...)
			p.pos++
			if p.pos >= len(p.s) {
				return "", p.errAt(start, "unclosed string")
			}
			switch c = p.s[p.pos]; c {
			case 'r':
				c = '\r'
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			}
			buf = append(buf, c)
			p.pos++
			seg = p.pos
		default:
			p.pos++
		}
	}
}

// bare reads an unquoted value: up to a line break, '}', "//" or the end
// of the text, or through a ';'; without its trailing blanks. A "/* */"
// inside is skipped (not nested); a line break inside it ends the value.
func (p *textParser) bare() (string, error) {
	var buf []byte // used once a comment is cut out
	seg := p.pos
	end := -1
	for end < 0 && p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == ';':
			end = p.pos
			p.pos++
		case c == '\r' || c == '\n' || c == '}':
			end = p.pos
		case c == '/' && p.pos+1 < len(p.s) && p.s[p.pos+1] == '/':
			end = p.pos
		case c == '/' && p.pos+1 < len(p.s) && p.s[p.pos+1] == '*':
			buf = append(buf, p.s[seg:p.pos]...)
			i := strings.Index(p.s[p.pos+2:], "*/")
			if i < 0 {
				return "", p.errAt(p.pos, "unexpected end of text inside a comment")
			}
			body := p.s[p.pos+2 : p.pos+2+i]
			p.pos += 2 + i + 2
			seg = p.pos
			if strings.ContainsAny(body, "\r\n") {
				end = p.pos
				seg = end // nothing more of this value
			}
		default:
			p.pos++
		}
	}
	if end < 0 {
		end = p.pos
	}
	v := p.s[seg:end]
	if buf != nil {
		v = string(append(buf, v...))
	}
	return strings.TrimRight(v, " \t"), nil
}

// param reads the rest of a param after "name:".
func (p *textParser) param(b *Block, name string, nameAt int) error {
	if err := p.skipWhite(true); err != nil {
		return err
	}
	typeAt := p.pos
	suffix, err := p.name("a type")
	if err != nil {
		return err
	}
	t, ok := TypeFromSuffix(suffix)
	if !ok {
		return p.errAt(typeAt, "unknown type %q", suffix)
	}
	if err := p.skipWhite(true); err != nil {
		return err
	}
	array := strings.HasPrefix(p.s[p.pos:], "[]")
	if array {
		p.pos += 2
		if err := p.skipWhite(true); err != nil {
			return err
		}
	}
	if p.eof() || p.s[p.pos] != '=' {
		return p.errAt(p.pos, "expected '=' after %s:%s", name, suffix)
	}
	p.pos++
	if err := p.skipWhite(false); err != nil {
		return err
	}
	if p.eof() || p.s[p.pos] == '\r' || p.s[p.pos] == '\n' {
		return p.errAt(p.pos, "value of %q missing: it must start on the line of its '='", name)
	}
	if !array {
		return p.addValue(b, name, t, nameAt, false)
	}
	if strings.HasPrefix(name, "@") && name != "@null" {
		return p.errAt(nameAt, "the directive %q cannot take an array", name)
	}
	open := p.pos
	if p.s[p.pos] != '[' {
		return p.errAt(p.pos, "expected '[' to open the array %s:%s[]", name, suffix)
	}
	p.pos++
	for {
		if err := p.skipWhite(true); err != nil {
			return err
		}
		if p.eof() {
			return p.errAt(open, "array %s:%s[] not closed: ']' missing", name, suffix)
		}
		switch p.s[p.pos] {
		case ']':
			p.pos++
			return nil
		case '}':
			return p.errAt(p.pos, "expected ']' to close the array %s:%s[], found '}'", name, suffix)
		}
		if err := p.addValue(b, name, t, nameAt, true); err != nil {
			return err
		}
	}
}

// addValue reads one value of type t at p.pos and adds it to b.
func (p *textParser) addValue(b *Block, name string, t Type, nameAt int, inArray bool) error {
	at := p.pos
	raw, err := p.value()
	if err != nil {
		return err
	}
	v, err := parseTextValue(t, raw)
	if err != nil {
		hint := ""
		if inArray && strings.HasSuffix(raw, "]") {
			hint = " (end the last array value with ';' or a line break before ']')"
		}
		return p.errAt(at, "bad %s value %q for %q: %v%s", t, raw, name, err, hint)
	}
	return p.add(b, name, v, nameAt)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanInt reads an int at the start of s as the engine's parse_naive
// does: an optional sign, then decimal digits, or (without '-') "0x" and
// hex digits; the value wraps modulo 2^64 (the caller truncates). It
// returns the number of bytes read, 0 if there is no number.
func scanInt(s string) (uint64, int) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var u uint64
	if !neg && strings.HasPrefix(s[i:], "0x") {
		for i += 2; i < len(s); i++ {
			c := s[i]
			switch {
			case isDigit(c):
				c -= '0'
			case c >= 'a' && c <= 'f':
				c -= 'a' - 10
			case c >= 'A' && c <= 'F':
				c -= 'A' - 10
			default:
				return u, i
			}
			u = u<<4 | uint64(c)
		}
		return u, i
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, 0
	}
	for ; i < len(s) && isDigit(s[i]); i++ {
		u = u*10 + uint64(s[i]-'0')
	}
	if neg {
		u = -u
	}
	return u, i
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word w
// in any case.
func hasPrefixFold(s, w string) bool {
	return len(s) >= len(w) && strings.EqualFold(s[:len(w)], w)
}

// scanFloat reads a float32 at the start of s as fast_float (the engine's
// reader) does: an optional '+' (skipped by the engine), an optional '-',
// digits with an optional '.' and exponent, or "inf", "infinity", "nan"
// and "nan(...)" in any case. It returns the bits and the number of bytes
// read, 0 if there is no number or it overflows float32.
func scanFloat(s string) (uint32, int) {
	i := 0
	if i < len(s) && s[i] == '+' {
		i++
	}
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	digits := j - i
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		digits += k - j - 1
		j = k
	}
	if digits == 0 {
		var bits uint32
		switch rest := s[i:]; {
		case hasPrefixFold(rest, "nan"):
			j = i + 3
			if k := strings.IndexByte(s[j:], ')'); j < len(s) && s[j] == '(' && k > 0 {
				ok := true
				for _, c := range []byte(s[j+1 : j+k]) {
					ok = ok && (isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_')
				}
				if ok {
					j += k + 1
				}
			}
			return quietNaN, j
		case hasPrefixFold(rest, "infinity"):
			bits, j = 0x7f800000, i+8
		case hasPrefixFold(rest, "inf"):
			bits, j = 0x7f800000, i+3
		default:
			return 0, 0
		}
		if i > start {
			bits |= 0x80000000
		}
		return bits, j
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(s[start:j], 32)
	if err != nil {
		return 0, 0
	}
	return math.Float32bits(float32(f)), j
}

// scanComma skips spaces, exactly one ',' and spaces (the engine's
// skip_comma); ok is false if there is no comma.
func scanComma(s string, i int) (int, bool) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i >= len(s) || s[i] != ',' {
		return i, false
	}
	i++
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i, true
}

// scanPoint reads n comma-separated components into w (the engine's
// parse_point) and returns the offset after the last one.
func scanPoint(s string, n int, ints bool, w []uint32) (int, error) {
	i := 0
	for k := 0; k < n; k++ {
		if k > 0 {
			var ok bool
			if i, ok = scanComma(s, i); !ok {
				return 0, fmt.Errorf("%d components, want %d", k, n)
			}
		}
		var m int
		if ints {
			var u uint64
			u, m = scanInt(s[i:])
			w[k] = uint32(u)
		} else {
			w[k], m = scanFloat(s[i:])
		}
		if m == 0 {
			return 0, fmt.Errorf("component %d is not a number", k+1)
		}
		i += m
	}
	return i, nil
}

var errTrailing = fmt.Errorf("not a number, or text after it")

func parseTextValue(t Type, s string) (Value, error) {
	v := Value{typ: t}
	switch t {
	case TypeString:
		return Str(s), nil
	case TypeBool:
		for _, w := range [...]string{"yes", "on", "true", "1"} {
			if strings.EqualFold(s, w) {
				return Bool(true), nil
			}
		}
		for _, w := range [...]string{"no", "off", "false", "0"} {
			if strings.EqualFold(s, w) {
				return Bool(false), nil
			}
		}
		return v, fmt.Errorf("not a boolean")
	case TypeInt, TypeInt64:
		u, n := scanInt(s)
		if n == 0 || n != len(s) {
			return v, errTrailing
		}
		v.w[0] = uint32(u)
		if t == TypeInt64 {
			v.w[1] = uint32(u >> 32)
		}
		return v, nil
	case TypeReal:
		bits, n := scanFloat(s)
		if n == 0 || n != len(s) {
			return v, errTrailing
		}
		v.w[0] = bits
		return v, nil
	case TypeColor:
		var w [4]uint32
		i, err := scanPoint(s, 3, true, w[:])
		if err != nil {
			return v, err
		}
		if w[0] > 255 || w[1] > 255 || w[2] > 255 {
			return v, fmt.Errorf("component out of 0..255")
		}
		w[3] = 255
		if j, ok := scanComma(s, i); ok {
			u, n := scanInt(s[j:])
			if n == 0 {
				return v, fmt.Errorf("alpha is not a number")
			}
			w[3] = uint32(u) & 0xFF
		}
		return ColorValue(Color{R: uint8(w[0]), G: uint8(w[1]), B: uint8(w[2]), A: uint8(w[3])}), nil
	case TypeMatrix:
		var w [12]uint32
		if !strings.HasPrefix(s, "[") {
			return v, fmt.Errorf("matrix not in [ ]")
		}
		i := 1
		for r := 0; r < 4; r++ {
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i >= len(s) || s[i] != '[' {
				return v, fmt.Errorf("row %d not in [ ]", r+1)
			}
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return v, fmt.Errorf("row %d not closed", r+1)
			}
			if _, err := scanPoint(s[i+1:i+end], 3, false, w[r*3:r*3+3]); err != nil {
				return v, fmt.Errorf("row %d: %v", r+1, err)
			}
			i += end + 1
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || s[i] != ']' {
			return v, fmt.Errorf("want 4 rows [a, b, c] in [ ]")
		}
		return makeValue(t, &w), nil
	}
	// point2/3/4, ipoint2/3/4
	ints := t == TypeIPoint2 || t == TypeIPoint3 || t == TypeIPoint4
	if _, err := scanPoint(s, typeInfo[t].words, ints, v.w[:]); err != nil {
		return v, err
	}
	return v, nil
}
