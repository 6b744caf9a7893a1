package describe

import (
	"io"

	"github.com/gobpx/bpx/sign"
)

// Signature is what bpx info and the explorer say of a file's signature
// (sign.Inspect): whether it is signed, by which keys, whether each
// signature verifies and whether the file matches what they sign. Nothing
// is trusted here: bpx verify --trusted checks a file against the keys a
// user trusts, and every byte.
type Signature struct {
	Signed bool `json:"signed"`
	// Matches: the header, the section table and the length match the
	// signed manifest (the data is not read).
	Matches bool           `json:"matches"`
	Problem string         `json:"problem,omitempty"` // why not, or why the signature section is malformed
	Keys    []SignatureKey `json:"signatures,omitempty"`
	// Stated is what the signers state (sign.Statement): the package's
	// name, version and expiry; "" when nothing.
	Stated  string `json:"stated,omitempty"`
	Summary string `json:"summary"` // all of it in one line (see Summary)
}

// SignatureKey is one signature of a file.
type SignatureKey struct {
	ID    string `json:"id"`    // the key's SHA256 fingerprint, as ssh-keygen -l prints it
	Key   string `json:"key"`   // the public key, one authorized_keys line
	Valid bool   `json:"valid"` // the signature verifies over the manifest
}

// InspectSignature returns the Signature of the file r (size bytes), or
// nil when r cannot be read.
func InspectSignature(r io.ReaderAt, size int64) *Signature {
	st, err := sign.Inspect(r, size)
	if err != nil || st == nil {
		return nil
	}
	out := &Signature{Signed: st.Signed, Matches: st.Matches}
	if !st.Statement.IsZero() {
		out.Stated = st.Statement.String()
	}
	if st.Problem != nil {
		out.Problem = st.Problem.Error()
	}
	for _, s := range st.Signatures {
		out.Keys = append(out.Keys, SignatureKey{ID: s.Key.ID(), Key: s.Key.String(), Valid: s.Valid})
	}
	out.Summary = out.summary()
	return out
}

// summary is the signature in one line, for bpx info and the explorer's
// container view: "none", or who signed and whether it verifies.
func (s *Signature) summary() string {
	if !s.Signed {
		if s.Problem != "" {
			return "none (" + s.Problem + ")"
		}
		return "none"
	}
	line := "signed"
	valid := 0
	for i, k := range s.Keys {
		if i == 0 {
			line += " by "
		} else {
			line += ", "
		}
		line += k.ID
		if k.Valid {
			valid++
		} else {
			line += " (invalid)"
		}
	}
	if s.Stated != "" {
		line += ", stating " + s.Stated
	}
	switch {
	case s.Problem != "":
		line += "; does NOT match: " + s.Problem
	case !s.Matches:
		line += "; does NOT match its manifest"
	case valid == 0:
		line += "; no signature verifies"
	default:
		line += "; matches its manifest (bpx verify --trusted checks every byte and who signed)"
	}
	return line
}
