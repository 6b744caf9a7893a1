package blk

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseText parses BLK text in the engine's syntax (what WriteText
// writes and DataBlockParser reads): "name:type=value" params, "name{...}"
// blocks, quoted names and strings with "~" escapes and triple-quoted
// multi-line strings, "//" and nested "/* */" comments, optional ";"
// after values, and "include" lines, kept as "@include" string params.
// Values are read as the engine reads them: ints in decimal or "0x" hex,
// booleans yes/no/on/off/true/false/1/0, colors with 3 or 4 components
// (alpha defaults to 255). A block named "@null" gets the name "".
//
// Not supported: the "name:type[]=[...]" array form and the engine's
// "@override:", "@delete:" and "@clone-last:" directives, which are kept
// as ordinary names. Errors name the line and the byte offset.
func ParseText(text []byte) (*Block, error) {
	p := &textParser{s: string(text), line: 1}
	if strings.HasPrefix(p.s, "\xEF\xBB\xBF") {
		p.pos = 3
	}
	root := &Block{}
	if err := p.block(root, 0); err != nil {
		return nil, err
	}
	return root, nil
}

type textParser struct {
	s    string
	pos  int
	line int
}

func (p *textParser) errf(format string, args ...any) error {
	return &FormatError{Offset: int64(p.pos), In: "text", What: fmt.Sprintf("line %d: ", p.line) + fmt.Sprintf(format, args...)}
}

func (p *textParser) eof() bool { return p.pos >= len(p.s) }

// skipWhite skips blanks, line ends and comments.
func (p *textParser) skipWhite() error {
	for !p.eof() {
		c := p.s[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == 0x1A:
			p.pos++
		case c == '\n':
			p.pos++
			p.line++
		case c == '/' && strings.HasPrefix(p.s[p.pos:], "//"):
			for !p.eof() && p.s[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && strings.HasPrefix(p.s[p.pos:], "/*"):
			if err := p.skipComment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// skipComment skips a (nestable) C comment at p.pos.
func (p *textParser) skipComment() error {
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
			if p.s[p.pos] == '\n' {
				p.line++
			}
			p.pos++
		}
	}
	return p.errf("unexpected end inside a comment")
}

func (p *textParser) block(b *Block, depth int) error {
	if depth > MaxDepth {
		return p.errf("blocks nested deeper than %d", MaxDepth)
	}
	for {
		if err := p.skipWhite(); err != nil {
			return err
		}
		if p.eof() {
			if depth > 0 {
				return p.errf("unexpected end of text, '}' missing")
			}
			return nil
		}
		if p.s[p.pos] == '}' {
			if depth == 0 {
				return p.errf("unexpected '}' in the top block")
			}
			p.pos++
			return nil
		}
		quoted := p.s[p.pos] == '"' || p.s[p.pos] == '\''
		name, err := p.ident()
		if err != nil {
			return err
		}
		if err := p.skipWhite(); err != nil {
			return err
		}
		if p.eof() {
			return p.errf("unexpected end of text after %q", name)
		}
		switch c := p.s[p.pos]; {
		case c == '{':
			p.pos++
			if name == "@null" {
				name = ""
			}
			if err := p.block(b.AddBlock(name), depth+1); err != nil {
				return err
			}
		case c == ':':
			p.pos++
			if err := p.param(b, name); err != nil {
				return err
			}
		case name == "include" && !quoted && (c == '"' || c == '\''):
			v, err := p.value()
			if err != nil {
				return err
			}
			b.Add("@include", Str(v))
		default:
			return p.errf("expected '{' or ':' after %q", name)
		}
	}
}

// ident reads a bare or quoted name.
func (p *textParser) ident() (string, error) {
	if p.eof() {
		return "", p.errf("expected a name")
	}
	if c := p.s[p.pos]; c == '"' || c == '\'' {
		return p.quoted()
	}
	start := p.pos
	for !p.eof() && isIdentChar(p.s[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		return "", p.errf("expected a name, found %q", p.s[p.pos])
	}
	return p.s[start:p.pos], nil
}

// quoted reads a quoted string at p.pos, with "~" escapes.
func (p *textParser) quoted() (string, error) {
	q := p.s[p.pos]
	p.pos++
	multi := strings.HasPrefix(p.s[p.pos:], string([]byte{q, q}))
	if multi {
		p.pos += 2
		// Skip the first line end, when only blanks precede it.
		for i := p.pos; i < len(p.s); i++ {
			if p.s[i] == '\n' {
				p.pos = i + 1
				p.line++
				break
			}
			if p.s[i] != ' ' && p.s[i] != '\r' && p.s[i] != '\t' {
				break
			}
		}
	}
	var sb strings.Builder
	for {
		if p.eof() {
			return "", p.errf("unclosed string")
		}
		c := p.s[p.pos]
		switch {
		case c == q && !multi:
			p.pos++
			return sb.String(), nil
		case c == q && multi && strings.HasPrefix(p.s[p.pos:], string([]byte{q, q, q})):
			p.pos += 3
			s := sb.String()
			if len(s) > 1 && s[len(s)-1] == '\n' {
				s = s[:len(s)-1]
			}
			return s, nil
		case (c == '\r' || c == '\n') && !multi:
			return "", p.errf("unclosed string")
		case c == '~':
			p.pos++
			if p.eof() {
				return "", p.errf("unclosed string")
			}
			switch c = p.s[p.pos]; c {
			case 'r':
				c = '\r'
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			}
		case c == '\r':
			p.pos++
			continue
		case c == '\n':
			p.line++
		}
		sb.WriteByte(c)
		p.pos++
	}
}

// value reads a quoted or bare value and an optional ';'.
func (p *textParser) value() (string, error) {
	for !p.eof() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
	if p.eof() {
		return "", p.errf("unexpected end of text, value missing")
	}
	if c := p.s[p.pos]; c == '"' || c == '\'' {
		s, err := p.quoted()
		if err != nil {
			return "", err
		}
		for !p.eof() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
			p.pos++
		}
		if !p.eof() && p.s[p.pos] == ';' {
			p.pos++
		}
		return s, nil
	}
	var sb strings.Builder
	for !p.eof() {
		c := p.s[p.pos]
		if c == ';' {
			p.pos++
			break
		}
		if c == '\r' || c == '\n' || c == '}' || strings.HasPrefix(p.s[p.pos:], "//") {
			break
		}
		if strings.HasPrefix(p.s[p.pos:], "/*") {
			if err := p.skipComment(); err != nil {
				return "", err
			}
			continue
		}
		sb.WriteByte(c)
		p.pos++
	}
	return strings.TrimRight(sb.String(), " \t"), nil
}

func (p *textParser) param(b *Block, name string) error {
	start := p.pos
	for !p.eof() && isIdentChar(p.s[p.pos]) {
		p.pos++
	}
	suffix := p.s[start:p.pos]
	t, ok := TypeFromSuffix(suffix)
	if !ok {
		return p.errf("unknown type %q", suffix)
	}
	for !p.eof() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
	if strings.HasPrefix(p.s[p.pos:], "[]") {
		return p.errf("the array form %s:%s[]= is not supported", name, suffix)
	}
	if p.eof() || p.s[p.pos] != '=' {
		return p.errf("expected '=' after %s:%s", name, suffix)
	}
	p.pos++
	valOff := p.pos
	raw, err := p.value()
	if err != nil {
		return err
	}
	v, err := parseTextValue(t, raw)
	if err != nil {
		p.pos = valOff
		return p.errf("bad %s value %q for %q: %v", t, raw, name, err)
	}
	b.Add(name, v)
	return nil
}

// parseTextInt reads an int as the engine does: optional sign, then
// decimal digits or (without a sign) "0x" and hex digits.
func parseTextInt(s string, bits int) (int64, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err := strconv.ParseUint(s[2:], 16, bits)
		return int64(u) << (64 - bits) >> (64 - bits), err
	}
	return strconv.ParseInt(s, 10, bits)
}

func parseTextFloat(s string) (uint32, error) {
	f, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return 0, err
	}
	if f != f {
		return quietNaN, nil
	}
	return math.Float32bits(float32(f)), nil
}

// textComponents splits "a, b, c" into exactly n trimmed parts.
func textComponents(s string, n int) ([]string, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%d components, want %d", len(parts), n)
	}
	for i := range parts {
		parts[i] = strings.Trim(parts[i], " \t")
	}
	return parts, nil
}

func parseTextValue(t Type, s string) (Value, error) {
	v := Value{typ: t}
	switch t {
	case TypeString:
		return Str(s), nil
	case TypeBool:
		switch strings.ToLower(s) {
		case "yes", "on", "true", "1":
			return Bool(true), nil
		case "no", "off", "false", "0":
			return Bool(false), nil
		}
		return v, fmt.Errorf("not a boolean")
	case TypeInt, TypeInt64:
		bits := 32
		if t == TypeInt64 {
			bits = 64
		}
		n, err := parseTextInt(s, bits)
		if err != nil {
			return v, err
		}
		v.w[0], v.w[1] = uint32(n), uint32(uint64(n)>>32)
		if t == TypeInt {
			v.w[1] = 0
		}
		return v, nil
	case TypeColor:
		parts := strings.Split(s, ",")
		if len(parts) != 3 && len(parts) != 4 {
			return v, fmt.Errorf("%d components, want 3 or 4", len(parts))
		}
		c := [4]uint8{255, 255, 255, 255}
		for i, part := range parts {
			n, err := parseTextInt(strings.Trim(part, " \t"), 32)
			if err != nil {
				return v, err
			}
			if n < 0 || n > 255 {
				return v, fmt.Errorf("component %d out of 0..255", n)
			}
			c[i] = uint8(n)
		}
		return ColorValue(Color{R: c[0], G: c[1], B: c[2], A: c[3]}), nil
	case TypeMatrix:
		s = strings.Trim(s, " \t")
		if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
			return v, fmt.Errorf("matrix not in [ ]")
		}
		var w [12]uint32
		rows := strings.Split(strings.Trim(s[1:len(s)-1], " \t"), "]")
		if len(rows) != 5 || strings.Trim(rows[4], " \t") != "" {
			return v, fmt.Errorf("want 4 rows [a, b, c]")
		}
		for r := 0; r < 4; r++ {
			row := strings.Trim(rows[r], " \t")
			if !strings.HasPrefix(row, "[") {
				return v, fmt.Errorf("row %d not in [ ]", r)
			}
			parts, err := textComponents(row[1:], 3)
			if err != nil {
				return v, err
			}
			for i, part := range parts {
				if w[r*3+i], err = parseTextFloat(part); err != nil {
					return v, err
				}
			}
		}
		return makeValue(t, &w), nil
	}
	parts, err := textComponents(s, typeInfo[t].words)
	if err != nil {
		return v, err
	}
	for i, part := range parts {
		switch t {
		case TypeReal, TypePoint2, TypePoint3, TypePoint4:
			v.w[i], err = parseTextFloat(part)
		default:
			var n int64
			n, err = parseTextInt(part, 32)
			v.w[i] = uint32(n)
		}
		if err != nil {
			return v, err
		}
	}
	return v, nil
}
