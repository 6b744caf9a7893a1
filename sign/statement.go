package sign

import (
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"
)

// Statement is what a signer states about a file: it is part of the
// manifest that the signatures sign, so nobody can change it without
// breaking them. A reader that requires a name and a least version (see
// Requirement) cannot be given another package signed by a key it
// trusts, nor an older release of the one it asked for; one whose
// Expires has passed is refused by every reader.
type Statement struct {
	// Name names the package ("supertuxkart-data"): at most MaxNameLen
	// bytes of UTF-8 without control characters; "" states no name.
	Name string
	// Version is the release number, which the signer increases with
	// each release; 0 states none.
	Version uint64
	// Expires is when readers start refusing the file (a launcher that
	// re-signs its current release now and then makes a frozen mirror
	// visible); the zero time never expires. Stored in whole seconds.
	Expires time.Time
}

// MaxNameLen is the longest Statement.Name.
const MaxNameLen = 255

// IsZero reports whether s states nothing.
func (s Statement) IsZero() bool { return s.Name == "" && s.Version == 0 && s.Expires.IsZero() }

// check returns an error when s cannot be stored.
func (s Statement) check() error {
	if len(s.Name) > MaxNameLen {
		return fmt.Errorf("sign: name of %d bytes, more than %d", len(s.Name), MaxNameLen)
	}
	if err := checkName(s.Name); err != nil {
		return fmt.Errorf("sign: name %q: %w", s.Name, err)
	}
	if !s.Expires.IsZero() && s.Expires.Unix() <= 0 {
		return fmt.Errorf("sign: expiry %v: not after 1970", s.Expires)
	}
	return nil
}

// checkName returns an error when name is not UTF-8 or holds a control
// character (names are printed to terminals).
func checkName(name string) error {
	if !utf8.ValidString(name) {
		return errors.New("not UTF-8")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("control character %U", r)
		}
	}
	return nil
}

// String describes s as bpx info prints it: `"name" version 3, expires
// 2027-01-01T00:00:00Z`, or "nothing stated".
func (s Statement) String() string {
	if s.IsZero() {
		return "nothing stated"
	}
	out := "no name"
	if s.Name != "" {
		out = fmt.Sprintf("%q", s.Name)
	}
	if s.Version != 0 {
		out += fmt.Sprintf(" version %d", s.Version)
	}
	if !s.Expires.IsZero() {
		out += ", expires " + s.Expires.UTC().Format(time.RFC3339)
	}
	return out
}

// Requirement is what a reader requires of a signed file's Statement,
// beyond a signature by a trusted key (see KeyRing.Require). It stops
// the substitution of one package for another and rollbacks: a game that
// loads "base" requires Name "base", and a launcher that installed
// version 7 requires MinVersion 7 from then on.
type Requirement struct {
	// Name, when not "", is the name the file must state, and a name its
	// signer's key is allowed to sign: an allowed_signers line's
	// principals must match it, as ssh-keygen -Y verify -I matches them
	// (authorized_keys lines allow every name).
	Name string
	// MinVersion is the least version the file must state.
	MinVersion uint64
}

// Require returns a copy of r that also requires q of every file it
// verifies: Open refuses a file whose Statement does not meet q with
// ErrRequirement, and counts only keys whose lines allow q.Name.
func (r *KeyRing) Require(q Requirement) *KeyRing {
	return &KeyRing{entries: r.entries, req: q}
}

// Requirement returns what r requires of the files it verifies.
func (r *KeyRing) Requirement() Requirement {
	if r == nil {
		return Requirement{}
	}
	return r.req
}

// meets returns an error matching ErrRequirement or ErrExpired when st
// does not meet q at now.
func (q Requirement) meets(st Statement, now time.Time) error {
	switch {
	case !st.Expires.IsZero() && now.After(st.Expires):
		return fmt.Errorf("%w on %s", ErrExpired, st.Expires.UTC().Format(time.RFC3339))
	case q.Name != "" && st.Name == "":
		return fmt.Errorf("%w: the file states no name, %q is required", ErrRequirement, q.Name)
	case q.Name != "" && st.Name != q.Name:
		return fmt.Errorf("%w: the file is signed as %q, %q is required", ErrRequirement, st.Name, q.Name)
	case st.Version < q.MinVersion:
		return fmt.Errorf("%w: the file is version %d, at least %d is required (an older release)", ErrRequirement, st.Version, q.MinVersion)
	}
	return nil
}
