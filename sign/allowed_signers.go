package sign

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/gobpx/bpx"
	"golang.org/x/crypto/ssh"
)

// This file reads ssh's allowed_signers lines by the rules of OpenSSH's
// sshsig.c, misc.c and match.c (ssh-keygen -Y verify), so that a line
// means here what it means to ssh-keygen, and a line ssh-keygen refuses
// is refused: the principals field (one token, or a double-quoted string
// that may hold spaces), then either the key or the options (up to the
// first space or tab outside double quotes) and the key. The options are
// cert-authority, namespaces="...", valid-after="..." and
// valid-before="...", each at most once, names in any case, separated by
// commas; anything else is an error. Patterns (principals, namespaces) are
// comma-separated lists of '*' and '?' globs, each optionally negated
// with '!', and nothing else: no character classes, no escapes.

// signerLine is one allowed_signers line, parsed.
type signerLine struct {
	principals  string // the principals pattern list, unquoted
	key         PublicKey
	otherType   string // the key's type when it is not ssh-ed25519 (the line can sign no BPX file)
	ca          bool   // cert-authority: the key signs certificates, not files
	namespaces  *string
	validAfter  uint64 // Unix seconds as ssh-keygen computes them, 0 when not given
	validBefore uint64
}

// parseSignerLine parses a non-blank, non-comment allowed_signers line.
// Errors match bpx.ErrFormat.
func parseSignerLine(line string) (*signerLine, error) {
	bad := func(format string, args ...any) (*signerLine, error) {
		return nil, fmt.Errorf("allowed_signers: "+format+": %w", append(args, bpx.ErrFormat)...)
	}
	l := &signerLine{}
	s := strings.TrimLeft(line, " \t\r\n")
	// The principals: strdelimw's token, where a double quote starts a
	// string that ends at the next one.
	i := strings.IndexAny(s, " \t\r\n\"")
	if i < 0 {
		return bad("no key after the principals %q", s)
	}
	if s[i] == '"' {
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return bad("the principals' quote is not closed")
		}
		l.principals = s[:i] + s[i+1:i+1+j]
		s = s[i+1+j+1:]
	} else {
		l.principals = s[:i]
		s = s[i+1:]
	}
	s = strings.TrimLeft(s, " \t\r\n")
	if !l.readKey(s) {
		// Options first: up to the first space or tab outside quotes.
		quoted, end := false, len(s)
		for k := 0; k < len(s); k++ {
			if !quoted && (s[k] == ' ' || s[k] == '\t') {
				end = k
				break
			}
			if s[k] == '\\' && k+1 < len(s) && s[k+1] == '"' {
				k++
			} else if s[k] == '"' {
				quoted = !quoted
			}
		}
		if quoted {
			return bad("an option's quote is not closed")
		}
		if end == len(s) {
			return bad("no key after the options %q", s)
		}
		opts := s[:end]
		if !l.readKey(strings.TrimLeft(s[end+1:], " \t")) {
			return bad("no valid key after the options %q", opts)
		}
		if err := l.parseOptions(opts); err != nil {
			return bad("options %q: %v", opts, err)
		}
	}
	return l, nil
}

// readKey reads a public key ("type base64 [comment]") at the start of s,
// as sshkey_read does, into l, and reports whether there is one.
func (l *signerLine) readKey(s string) bool {
	typ, rest, ok := cutSpace(s)
	if !ok || !isKeyType(typ) {
		return false
	}
	b64, comment, _ := cutSpace(strings.TrimLeft(rest, " \t"))
	blob, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return false
	}
	pk, err := ssh.ParsePublicKey(blob)
	if err != nil || pk.Type() != typ {
		return false
	}
	if typ != ssh.KeyAlgoED25519 {
		// A valid key of another type: ssh-keygen reads the line, and its
		// key signs no BPX file.
		l.otherType = typ
		return true
	}
	k, err := fromSSH(pk, strings.TrimSpace(comment))
	if err != nil {
		return false
	}
	l.key = k
	return true
}

// cutSpace cuts s around its first space or tab.
func cutSpace(s string) (before, after string, found bool) {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// parseOptions parses an options list as sshsigopt_parse does.
func (l *signerLine) parseOptions(opts string) error {
	for opts != "" {
		lower := strings.ToLower(opts)
		switch {
		case strings.HasPrefix(lower, "cert-authority"):
			l.ca = true
			opts = opts[len("cert-authority"):]
		case strings.HasPrefix(lower, "namespaces="):
			if l.namespaces != nil {
				return fmt.Errorf(`more than one "namespaces"`)
			}
			v, rest, err := dequote(opts[len("namespaces="):])
			if err != nil {
				return err
			}
			l.namespaces, opts = &v, rest
		case strings.HasPrefix(lower, "valid-after="), strings.HasPrefix(lower, "valid-before="):
			name, _, _ := strings.Cut(lower, "=")
			t := &l.validAfter
			if name == "valid-before" {
				t = &l.validBefore
			}
			if *t != 0 {
				return fmt.Errorf("more than one %q", name)
			}
			v, rest, err := dequote(opts[len(name)+1:])
			if err != nil {
				return err
			}
			if *t, err = parseSSHTime(v); err != nil {
				return fmt.Errorf("%s=%q: %v", name, v, err)
			}
			opts = rest
		}
		if opts == "" {
			break
		}
		if opts[0] != ',' {
			return fmt.Errorf("unknown option at %q", opts)
		}
		if opts = opts[1:]; opts == "" {
			return fmt.Errorf("the options end with a comma")
		}
	}
	if l.validAfter != 0 && l.validBefore != 0 && l.validBefore <= l.validAfter {
		return fmt.Errorf("valid-before is not after valid-after")
	}
	return nil
}

// dequote reads a double-quoted option value at the start of s, where \"
// stands for a quote, and returns it and what follows.
func dequote(s string) (string, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("a value must be quoted: %q", s)
	}
	var v strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			v.WriteByte('"')
			i++
		case s[i] == '"':
			return v.String(), s[i+1:], nil
		default:
			v.WriteByte(s[i])
		}
	}
	return "", "", fmt.Errorf("a value's quote is not closed: %q", s)
}

// parseSSHTime parses a date of the validity options as
// parse_absolute_time does: YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, in
// UTC with a Z or UTC suffix (any case), else in local time; out-of-range
// days and seconds roll over as mktime makes them. It returns Unix seconds
// as ssh-keygen stores them (an unsigned 64-bit number); the epoch itself
// is refused, as ssh-keygen refuses it.
func parseSSHTime(v string) (uint64, error) {
	loc := time.Local
	switch u := strings.ToUpper(v); {
	case len(v) > 1 && strings.HasSuffix(u, "Z"):
		v, loc = v[:len(v)-1], time.UTC
	case len(v) > 3 && strings.HasSuffix(u, "UTC"):
		v, loc = v[:len(v)-3], time.UTC
	}
	if len(v) != 8 && len(v) != 12 && len(v) != 14 {
		return 0, fmt.Errorf("not a date YYYYMMDD[HHMM[SS]][Z]")
	}
	var f [6]int
	limits := [6][2]int{{0, 9999}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 61}}
	for i, w := 0, 0; w < len(v); i++ {
		n := 2
		if i == 0 {
			n = 4
		}
		for _, c := range v[w : w+n] {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("not a date YYYYMMDD[HHMM[SS]][Z]")
			}
			f[i] = f[i]*10 + int(c-'0')
		}
		if f[i] < limits[i][0] || f[i] > limits[i][1] {
			return 0, fmt.Errorf("not a date YYYYMMDD[HHMM[SS]][Z]")
		}
		w += n
	}
	t := uint64(time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, loc).Unix())
	if t == 0 {
		return 0, fmt.Errorf("the epoch is not a valid date here")
	}
	return t, nil
}

// matchPattern reports whether s matches pattern, where '*' matches any
// run of characters and '?' any one, and every other character itself
// (match.c's match_pattern).
func matchPattern(s, pattern string) bool {
	// The usual two-pointer glob match with backtracking to the last '*':
	// linear in practice, O(len(s)*len(pattern)) at worst.
	si, pi, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(pattern) && (pattern[pi] == '?' || pattern[pi] == s[si]):
			si++
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// matchPatternList matches s against a comma-separated pattern list as
// match.c's match_pattern_list does: -1 when a negated pattern ('!')
// matches, 1 when a plain one does and no negated one, 0 otherwise. A
// pattern of 1023 bytes or more ends the list with no match.
func matchPatternList(s, list string) int {
	positive := 0
	for i := 0; i < len(list); {
		negated := list[i] == '!'
		if negated {
			i++
		}
		j := strings.IndexByte(list[i:], ',')
		if j < 0 {
			j = len(list) - i
		}
		if j >= 1023 {
			return 0
		}
		sub := list[i : i+j]
		i += j
		if i < len(list) {
			i++ // the comma
		}
		if matchPattern(s, sub) {
			if negated {
				return -1
			}
			positive = 1
		}
	}
	return positive
}
