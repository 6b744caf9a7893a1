package termsafe

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// Plain reports whether Name prints name as it is: name is valid UTF-8,
// every rune is printable (strconv.IsPrint) and it does not start with a
// double quote.
func Plain(name string) bool {
	return (name == "" || name[0] != '"') && plainText(name, false)
}

// Name returns name as it is when Plain(name), else name quoted whole with
// strconv.Quote.
func Name(name string) string {
	if Plain(name) {
		return name
	}
	return strconv.Quote(name)
}

// AppendName appends Name(name) to dst and returns the extended buffer.
func AppendName(dst []byte, name string) []byte {
	if Plain(name) {
		return append(dst, name...)
	}
	return strconv.AppendQuote(dst, name)
}

// Message returns msg with each rune that is not printable
// (strconv.IsPrint) and each byte that is not valid UTF-8 replaced by its Go
// escape: \x1b, \n, \u202e, \xff. Everything else, backslashes included, is
// left as it is.
func Message(msg string) string {
	if plainText(msg, false) {
		return msg
	}
	return string(appendEscaped(make([]byte, 0, len(msg)+16), msg, false))
}

// Lines is Message for text of many lines: it keeps line feeds and tabs.
func Lines(text string) string {
	if plainText(text, true) {
		return text
	}
	return string(appendEscaped(make([]byte, 0, len(text)+16), text, true))
}

// Writer is an io.Writer that writes what it is given through Lines.
// Each Write is escaped on its own, so a rune split between two writes is
// escaped as invalid bytes: write whole lines (fmt.Fprintf does). A Writer
// is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p to the underlying writer with Lines' escapes, and returns
// len(p) when all of it was written.
func (w *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if plainText(s, true) {
		return w.w.Write(p)
	}
	w.buf = appendEscaped(w.buf[:0], s, true)
	if _, err := w.w.Write(w.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// plainText reports whether appendEscaped would leave s as it is.
func plainText(s string, lines bool) bool {
	i := asciiPrintablePrefix(s)
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(lines && (c == '\n' || c == '\t')) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// asciiPrintablePrefix returns the length of a prefix of s, a multiple of
// 8 bytes, that holds only printable ASCII (0x20-0x7E): eight bytes at a
// time, which makes the check of a plain name cost about as much as
// utf8.ValidString of it.
func asciiPrintablePrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// With every byte b below 0x80, no sum below carries into the next
		// byte: b+0x60 has its high bit set when b >= 0x20, and b+1 when
		// b == 0x7F.
		if x&highs != 0 || (x+0x60*ones)&highs != highs || (x+ones)&highs != 0 {
			break
		}
	}
	return i
}

// appendEscaped appends s to dst with every rune that is not printable and
// every invalid byte replaced by its Go escape; with lines, line feeds and
// tabs are kept.
func appendEscaped(dst []byte, s string, lines bool) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || lines && (c == '\n' || c == '\t') {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
		case strconv.IsPrint(r):
			dst = append(dst, s[i:i+size]...)
		default:
			// '\x1b' without its quotes.
			start := len(dst)
			dst = strconv.AppendQuoteRune(dst, r)
			dst = append(dst[:start], dst[start+1:len(dst)-1]...)
		}
		i += size
	}
	return dst
}
