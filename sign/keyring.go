package sign

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gobpx/bpx"
)

// KeyRing is a set of public keys a reader trusts, each with what its
// line allows (see ParseKeyRing), and what the reader requires of the
// files they sign (see Require).
type KeyRing struct {
	entries []ringEntry
	req     Requirement
}

// ringEntry is one trusted key and what its line allows.
type ringEntry struct {
	key PublicKey
	// principals is the allowed_signers line's pattern list of the names
	// the key may sign (see Requirement.Name); "" with listed false for an
	// authorized_keys line or NewKeyRing: any name.
	principals  string
	listed      bool
	validAfter  uint64 // Unix seconds; 0: not given
	validBefore uint64
}

// NewKeyRing returns a KeyRing of keys, each trusted for any name.
func NewKeyRing(keys ...PublicKey) *KeyRing {
	r := &KeyRing{}
	for _, k := range keys {
		r.entries = append(r.entries, ringEntry{key: k})
	}
	return r
}

// maxKeyRingFile bounds a trusted-keys file.
const maxKeyRingFile = 1 << 20

// ParseKeyRing parses a trusted-keys file. Its lines are authorized_keys
// or .pub lines ("ssh-ed25519 AAAA... comment"), which trust a key for
// any file, or ssh's allowed_signers lines ("principals [options]
// ssh-ed25519 AAAA... [comment]"), read exactly as ssh-keygen -Y verify
// reads them: the principals are a pattern list of the names the key may
// sign (matched against Requirement.Name, as ssh-keygen matches -I; they
// become the key's comment when it has none); options are
// cert-authority, namespaces="...", valid-after="..." and
// valid-before="..." and nothing else. A line whose key may not sign in
// namespace bpx (namespaces="..." that does not match it, or
// cert-authority: such a key signs certificates, not files) is skipped, as
// ssh-keygen skips it; its validity dates are checked at Open. Patterns
// are ssh's: '*' and '?' globs, '!' to negate, nothing else. Lines of
// another key type (ssh-rsa, ...) are read and skipped: only ssh-ed25519
// keys sign BPX files. Blank lines and lines starting with # are skipped.
// Any other line, and any line ssh-keygen refuses, is an error naming its
// number and matching bpx.ErrFormat: ssh-keygen would refuse the whole
// file at that line. A file that names no ssh-ed25519 key is an error
// too (bpx.ErrUnsupported when it names keys of other types only):
// trusting nobody is never what a caller meant.
func ParseKeyRing(data []byte) (*KeyRing, error) {
	if len(data) > maxKeyRingFile {
		return nil, fmt.Errorf("sign: trusted keys: %d bytes, more than %d: %w", len(data), maxKeyRingFile, bpx.ErrTooLarge)
	}
	r := &KeyRing{}
	var others []string
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimLeft(line, " \t\r"); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		e, other, err := parseKeyLine(line)
		if err != nil {
			return nil, fmt.Errorf("sign: trusted keys, line %d: %w", n+1, err)
		}
		switch {
		case other != "":
			if !slices.Contains(others, other) {
				others = append(others, other)
			}
		case e != nil:
			r.entries = append(r.entries, *e)
		}
	}
	if len(r.entries) == 0 {
		if len(others) > 0 {
			return nil, fmt.Errorf("sign: trusted keys: no ssh-ed25519 key, only %s keys, which sign no BPX file: %w", strings.Join(others, ", "), bpx.ErrUnsupported)
		}
		return nil, fmt.Errorf("sign: trusted keys: no key: %w", bpx.ErrFormat)
	}
	return r, nil
}

// parseKeyLine parses an authorized_keys or allowed_signers line. It
// returns nil for a line whose key may not sign BPX files, and the key's
// type for a valid key of another type.
func parseKeyLine(line string) (*ringEntry, string, error) {
	if f, _, _ := cutSpace(strings.TrimLeft(line, " \t")); isKeyType(f) {
		k, err := ParsePublicKey([]byte(line))
		if errors.Is(err, bpx.ErrUnsupported) {
			return nil, f, nil
		}
		if err != nil {
			return nil, "", err
		}
		return &ringEntry{key: k}, "", nil
	}
	l, err := parseSignerLine(line)
	switch {
	case err != nil:
		return nil, "", err
	case l.otherType != "":
		return nil, l.otherType, nil
	case l.ca, l.namespaces != nil && matchPatternList(Namespace, *l.namespaces) != 1:
		return nil, "", nil
	}
	k := l.key
	if k.Comment == "" {
		k.Comment = l.principals
	}
	return &ringEntry{key: k, principals: l.principals, listed: true, validAfter: l.validAfter, validBefore: l.validBefore}, "", nil
}

// validAt reports whether e's validity dates allow it at now, as
// ssh-keygen compares them (in whole seconds).
func (e *ringEntry) validAt(now time.Time) bool {
	t := uint64(now.Unix())
	return (e.validAfter == 0 || t >= e.validAfter) && (e.validBefore == 0 || t <= e.validBefore)
}

// allows reports whether e lets its key sign a file of the given name
// (any file when name is ""): ssh-keygen -Y verify -I name.
func (e *ringEntry) allows(name string) bool {
	return name == "" || !e.listed || matchPatternList(name, e.principals) == 1
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
func (r *KeyRing) Keys() []PublicKey {
	var keys []PublicKey
	for _, e := range r.entries {
		keys = append(keys, e.key)
	}
	return keys
}

// Lookup returns the ring's entry for k (with the ring's comment), and
// whether there is one that is valid now.
func (r *KeyRing) Lookup(k PublicKey) (PublicKey, bool) {
	e := r.lookup(k, "", time.Now())
	if e == nil {
		return PublicKey{}, false
	}
	return e.key, true
}

// lookup returns the first entry for k that is valid at now and allows
// name, or nil.
func (r *KeyRing) lookup(k PublicKey, name string, now time.Time) *ringEntry {
	if r == nil {
		return nil
	}
	for i := range r.entries {
		if e := &r.entries[i]; e.key.Equal(k) && e.validAt(now) && e.allows(name) {
			return e
		}
	}
	return nil
}

// isKeyType reports whether f names an OpenSSH public key type.
func isKeyType(f string) bool {
	return strings.HasPrefix(f, "ssh-") || strings.HasPrefix(f, "ecdsa-") || strings.HasPrefix(f, "sk-")
}

// has reports whether r holds k, valid or not.
func (r *KeyRing) has(k PublicKey) bool {
	if r == nil {
		return false
	}
	for _, e := range r.entries {
		if e.key.Equal(k) {
			return true
		}
	}
	return false
}
