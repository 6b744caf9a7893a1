package sign

import (
	"fmt"

	"github.com/gobpx/bpx"
)

// The ways a file fails Open; each matches bpx.ErrSignature.
var (
	// ErrUnsigned: the file has no signature section (its last section is
	// of another type).
	ErrUnsigned = fmt.Errorf("sign: the file is not signed: %w", bpx.ErrSignature)

	// ErrUntrusted: no signature of the file is by a trusted key that
	// verifies.
	ErrUntrusted = fmt.Errorf("sign: the file is signed by no trusted key: %w", bpx.ErrSignature)

	// ErrTampered: the file does not match the manifest its signatures
	// sign (its header, its section table, its length or the bytes of a
	// chunk), or the signature section is malformed.
	ErrTampered = fmt.Errorf("sign: the file does not match its signature: %w", bpx.ErrSignature)
)
