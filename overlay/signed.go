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
// afterwards. Signers tells which key signed each layer.
func RequireSigned(layers ...fs.FS) (*FS, error) {
	for i, l := range layers {
		if l == nil {
			continue // New names it
		}
		s, ok := l.(Signed)
		if !ok {
			return nil, fmt.Errorf("overlay: layer %d (%T) cannot be checked against trusted keys (open packages with pack.WithTrustedKeys): %w", i, l, bpx.ErrSignature)
		}
		if len(s.Signers()) == 0 {
			return nil, fmt.Errorf("overlay: layer %d is signed by no trusted key (opened without pack.WithTrustedKeys?): %w", i, bpx.ErrSignature)
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
