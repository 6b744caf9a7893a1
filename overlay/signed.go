package overlay

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/sign"
)

// Signed is implemented by a layer that knows which trusted keys signed
// it, such as a *pack.Package opened with pack.WithTrustedKeys, whose
// every byte read is checked against the signature (see package sign).
type Signed interface {
	// Signers returns the trusted keys whose signatures of the layer
	// verified; none when it was not checked against trusted keys.
	Signers() []sign.PublicKey
}

// RequireSigned is New for a game that loads only layers signed by keys
// it trusts: every layer must implement Signed and name at least one
// signer, else RequireSigned fails with an error matching
// bpx.ErrSignature that names the layer by its index. Open the layers
// with pack.WithTrustedKeys: that checks the signatures, and every read
// afterwards. Signers tells which key signed each layer. A game that
// signs nothing of its own and wants every mod signed uses a Policy.
func RequireSigned(layers ...fs.FS) (*FS, error) { return Policy{}.New(layers...) }

// A Policy says which layers of a stack must be signed, and by whom. The
// usual one, Policy{Unsigned: 1}, loads the game's own base unsigned (it
// ships with the game and is trusted as its executable is) and requires
// every mod above it to be signed by a trusted key.
type Policy struct {
	// Unsigned is how many layers, from the lowest, need no signature:
	// the game's own base packages.
	Unsigned int
	// Keys, when not empty, are the keys that may sign the other layers:
	// a layer signed only by other keys is refused. Empty: any trusted
	// key a layer was opened with (pack.WithTrustedKeys) counts.
	Keys []sign.PublicKey
}

// New layers the layers as overlay.New does, lowest first, after checking
// them against the policy: every layer above the first p.Unsigned must
// implement Signed and name a signer (one of p.Keys, when given). A
// layer that does not fails New with an error matching bpx.ErrSignature
// that names it by its index. Open the signed layers with
// pack.WithTrustedKeys: that checks their signatures, and every read
// afterwards.
func (p Policy) New(layers ...fs.FS) (*FS, error) {
	for i, l := range layers {
		if l == nil || i < p.Unsigned {
			continue // New names a nil layer
		}
		s, ok := l.(Signed)
		if !ok {
			return nil, fmt.Errorf("overlay: layer %d (%T) cannot be checked against trusted keys (open packages with pack.WithTrustedKeys): %w", i, l, bpx.ErrSignature)
		}
		signers := s.Signers()
		if len(signers) == 0 {
			return nil, fmt.Errorf("overlay: layer %d is signed by no trusted key (opened without pack.WithTrustedKeys?): %w", i, bpx.ErrSignature)
		}
		if len(p.Keys) > 0 && !slices.ContainsFunc(signers, func(k sign.PublicKey) bool {
			return slices.ContainsFunc(p.Keys, k.Equal)
		}) {
			return nil, fmt.Errorf("overlay: layer %d is signed by %s, none of the keys the policy allows for it: %w", i, signers[0].ID(), bpx.ErrSignature)
		}
	}
	return New(layers...)
}

// Signers returns the trusted keys that signed the layer of index layer
// (as given to New, lowest first), as the layer's Signers method names
// them when the FS was made; nil for a layer that does not implement
// Signed or names no signer, and for an index out of range.
func (f *FS) Signers(layer int) []sign.PublicKey {
	if layer < 0 || layer >= len(f.signers) {
		return nil
	}
	return slices.Clone(f.signers[layer])
}
