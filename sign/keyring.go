package sign

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/gobpx/bpx"
)

// KeyRing is a set of public keys a reader trusts.
type KeyRing struct {
	keys []PublicKey
}

// NewKeyRing returns a KeyRing of keys.
func NewKeyRing(keys ...PublicKey) *KeyRing {
	return &KeyRing{keys: append([]PublicKey(nil), keys...)}
}

// maxKeyRingFile bounds a trusted-keys file.
const maxKeyRingFile = 1 << 20

// ParseKeyRing parses a trusted-keys file: one public key per line, as
// authorized_keys and .pub files hold them ("ssh-ed25519 AAAA...
// comment"), or as ssh's allowed_signers lines ("principals
// ssh-ed25519 AAAA... [comment]", where the principals become the
// comment when there is none; a line whose options keep the key from
// signing in namespace bpx now (namespaces="..." without it,
// cert-authority, a valid-before date past or a valid-after date to come)
// is skipped, as ssh-keygen -Y verify -n bpx skips it). Blank lines and
// lines starting with # are skipped. Any other line is an error naming its number, matching
// bpx.ErrFormat (or bpx.ErrUnsupported for a key type other than
// ssh-ed25519). A file that names no key is an error too: trusting
// nobody is never what a caller meant.
func ParseKeyRing(data []byte) (*KeyRing, error) {
	if len(data) > maxKeyRingFile {
		return nil, fmt.Errorf("sign: trusted keys: %d bytes, more than %d: %w", len(data), maxKeyRingFile, bpx.ErrTooLarge)
	}
	r := &KeyRing{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxKeyRingFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := parseKeyLine(line)
		if err == errNotForBPX {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sign: trusted keys, line %d: %w", n, err)
		}
		r.keys = append(r.keys, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sign: trusted keys: %v: %w", err, bpx.ErrFormat)
	}
	if len(r.keys) == 0 {
		return nil, fmt.Errorf("sign: trusted keys: no key: %w", bpx.ErrFormat)
	}
	return r, nil
}

// parseKeyLine parses an authorized_keys or allowed_signers line.
func parseKeyLine(line string) (PublicKey, error) {
	fields := strings.Fields(line)
	if len(fields) > 0 && isKeyType(fields[0]) {
		return ParsePublicKey([]byte(line))
	}
	// allowed_signers: principals, options, then the key.
	for i := 1; i < len(fields); i++ {
		if isKeyType(fields[i]) {
			if ok, err := optionsAllowBPX(strings.Join(fields[1:i], " "), time.Now()); err != nil || !ok {
				return PublicKey{}, cmp.Or(err, errNotForBPX)
			}
			k, err := ParsePublicKey([]byte(strings.Join(fields[i:], " ")))
			if err == nil && k.Comment == "" {
				k.Comment = fields[0]
			}
			return k, err
		}
	}
	return PublicKey{}, fmt.Errorf("no ssh-ed25519 key on the line: %w", bpx.ErrFormat)
}

// errNotForBPX is parseKeyLine's answer for an allowed_signers line whose
// options keep its key from signing BPX files: ParseKeyRing skips it.
var errNotForBPX = errors.New("not a key for namespace " + Namespace)

// optionsAllowBPX reports whether the options of an allowed_signers line
// let its key sign in Namespace at now, as ssh-keygen -Y verify would:
// not a cert-authority (it signs certificates, which are not accepted
// here), namespaces, when given, a pattern list that matches Namespace
// and negates it nowhere, and now within valid-after and valid-before.
// A date it cannot read is an error matching bpx.ErrFormat.
func optionsAllowBPX(opts string, now time.Time) (bool, error) {
	allow := true
	for _, o := range splitOptions(opts) {
		name, value, _ := strings.Cut(o, "=")
		value = strings.Trim(value, `"`)
		switch name = strings.ToLower(name); name {
		case "cert-authority":
			allow = false
		case "namespaces":
			ok := false
			for _, p := range strings.Split(value, ",") {
				neg := strings.HasPrefix(p, "!")
				if m, _ := path.Match(strings.TrimPrefix(p, "!"), Namespace); m {
					if neg {
						return false, nil
					}
					ok = true
				}
			}
			allow = allow && ok
		case "valid-after", "valid-before":
			t, err := parseSSHTime(value)
			if err != nil {
				return false, fmt.Errorf("%s=%q: %w", name, value, err)
			}
			if name == "valid-after" {
				allow = allow && !now.Before(t)
			} else {
				allow = allow && now.Before(t)
			}
		}
	}
	return allow, nil
}

// parseSSHTime parses a date of allowed_signers' validity options:
// YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, in UTC with a Z suffix, else
// in local time.
func parseSSHTime(v string) (time.Time, error) {
	loc := time.Local
	if s, ok := strings.CutSuffix(v, "Z"); ok {
		v, loc = s, time.UTC
	}
	for _, layout := range []string{"20060102", "200601021504", "20060102150405"} {
		if len(v) == len(layout) {
			if t, err := time.ParseInLocation(layout, v, loc); err == nil {
				return t, nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("not a date YYYYMMDD[HHMM[SS]][Z]: %w", bpx.ErrFormat)
}

// splitOptions splits the options of an allowed_signers line at the
// commas outside double quotes.
func splitOptions(opts string) []string {
	var out []string
	quoted, from := false, 0
	for i := 0; i < len(opts); i++ {
		switch opts[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, opts[from:i])
				from = i + 1
			}
		}
	}
	return append(out, opts[from:])
}

// LoadKeyRing reads a trusted-keys file (see ParseKeyRing).
func LoadKeyRing(name string) (*KeyRing, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxKeyRingFile+1)); err != nil {
		return nil, err
	}
	r, err := ParseKeyRing(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// Keys returns the keys of the ring.
func (r *KeyRing) Keys() []PublicKey { return append([]PublicKey(nil), r.keys...) }

// Lookup returns the ring's entry for k (with the ring's comment), and
// whether there is one.
func (r *KeyRing) Lookup(k PublicKey) (PublicKey, bool) {
	if r == nil {
		return PublicKey{}, false
	}
	for _, t := range r.keys {
		if t.Equal(k) {
			return t, true
		}
	}
	return PublicKey{}, false
}

// isKeyType reports whether f names an OpenSSH public key type.
func isKeyType(f string) bool {
	return strings.HasPrefix(f, "ssh-") || strings.HasPrefix(f, "ecdsa-") || strings.HasPrefix(f, "sk-")
}
