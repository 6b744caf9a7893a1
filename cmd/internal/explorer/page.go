package explorer

import "unicode/utf8"

// pageSize adds up the JSON bytes of the entries of a page, to end it at
// MaxPageBytes.
type pageSize struct{ n int }

// fits adds an entry of n bytes when the page has room for it, or is
// empty (a page holds one entry at least), and reports whether it did.
func (p *pageSize) fits(n int) bool {
	if p.n > 0 && p.n+n > MaxPageBytes {
		return false
	}
	p.n += n
	return true
}

// jsonLen bounds the bytes s takes as a JSON string, quotes included, as
// encoding/json writes it (escaping HTML): each byte that may be escaped
// counts 6 (\u00XX), an invalid byte 6 (\ufffd), U+2028 and U+2029 6.
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				n += 6
			} else {
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}
