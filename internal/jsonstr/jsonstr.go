// Package jsonstr writes JSON strings for the JSON writers of the module
// (sd's plain and typed JSON, blk's wt_blk-compatible and typed JSON), in
// one of two flavours that differ only in corner cases, so that each
// writer's output stays what it has always been.
//
// encoding/json is not used: it has no append form, json.Marshal escapes
// <, > and & and allocates per string, and its escapes differ from both
// flavours (U+2028 and U+2029 are escaped, and so on); see the benchmark.
package jsonstr

import "unicode/utf8"

// Flavour selects how Append treats the corner cases.
type Flavour uint8

const (
	// Go writes \b and \f as \u0008 and \u000c, and each byte of invalid
	// UTF-8 as the escape \ufffd (the sd package's JSON).
	Go Flavour = iota

	// Serde writes \b and \f as such, and each maximal ill-formed UTF-8
	// subpart as one raw U+FFFD, as serde_json after Rust's
	// String::from_utf8_lossy (wt_blk's JSON, which the blk package
	// reproduces byte for byte).
	Serde
)

const hexDigits = "0123456789abcdef"

// Append appends s to dst as a quoted JSON string: '"' and '\' are
// escaped, \n, \r and \t get their short escapes and other control
// characters below 0x20 \u00XX; valid UTF-8 is copied as it is, DEL and
// U+2028/U+2029 included. The flavour decides the rest.
func Append(dst []byte, s string, f Flavour) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is still to be copied
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b' && f == Serde:
				dst = append(dst, '\\', 'b')
			case c == '\f' && f == Serde:
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		if f == Serde {
			dst = append(dst, "\uFFFD"...)
			i += maximalSubpart(s[i:])
		} else {
			dst = append(dst, `\ufffd`...)
			i++
		}
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendLossy appends s with each maximal ill-formed UTF-8 subpart
// replaced by one U+FFFD, as Rust's String::from_utf8_lossy does, and
// nothing escaped (wt_blk writes JSON keys this way).
func AppendLossy(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\uFFFD"...)
			i += maximalSubpart(s[i:])
			continue
		}
		dst = append(dst, s[i:i+n]...)
		i += n
	}
	return dst
}

// maximalSubpart returns the length of the ill-formed sequence at the
// start of s: a lead byte and the continuation bytes that could still
// have completed it (Unicode §3.9, "U+FFFD Substitution of Maximal
// Subparts", which from_utf8_lossy follows).
func maximalSubpart(s string) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch b := s[0]; {
	case b >= 0xC2 && b <= 0xDF:
		need = 1
	case b == 0xE0:
		lo, need = 0xA0, 2
	case b == 0xED:
		hi, need = 0x9F, 2
	case b >= 0xE1 && b <= 0xEF:
		need = 2
	case b == 0xF0:
		lo, need = 0x90, 3
	case b == 0xF4:
		hi, need = 0x8F, 3
	case b >= 0xF1 && b <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(s); n++ {
		if s[n] < lo || s[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}
