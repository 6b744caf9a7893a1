package remote

import (
	"fmt"
	"strings"
)

// parseContentRange parses the Content-Range of a 206 answer,
// "bytes FIRST-LAST/TOTAL" with TOTAL a number or "*" (RFC 9110 §14.4),
// strictly: no spaces but the one after "bytes", decimal digits only, no
// number above 2^63-1, FIRST <= LAST, LAST < TOTAL. total is -1 for "*".
func parseContentRange(s string) (first, last, total int64, err error) {
	bad := func(why string) (int64, int64, int64, error) {
		return 0, 0, 0, fmt.Errorf("%w: Content-Range %q: %s", ErrProtocol, s, why)
	}
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad("not a byte range")
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return bad("no total size")
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return bad("no range")
	}
	if first, ok = digits(a); !ok {
		return bad("bad first byte")
	}
	if last, ok = digits(b); !ok {
		return bad("bad last byte")
	}
	if first > last {
		return bad("first byte after last")
	}
	total = -1
	if tot != "*" {
		if total, ok = digits(tot); !ok {
			return bad("bad total size")
		}
		if last >= total {
			return bad("range past the end")
		}
	}
	return first, last, total, nil
}

// digits parses a non-empty string of decimal digits that fits an int64.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63-1-int64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
