package sign

import "github.com/gobpx/bpx"

// The ways a file fails Open; each matches bpx.ErrSignature.
var (
	// ErrUnsigned: the file has no signature section (its last section is
	// of another type).
	ErrUnsigned error = &sigError{"sign: the file is not signed"}

	// ErrUntrusted: no signature of the file is by a trusted key that
	// verifies.
	ErrUntrusted error = &sigError{"sign: the file is signed by no trusted key"}

	// ErrTampered: the file does not match the manifest its signatures
	// sign (its header, its section table, its length or the bytes of a
	// chunk), the signature section is malformed, or one of its
	// signatures does not verify (against its own key, trusted or not).
	ErrTampered error = &sigError{"sign: the file does not match its signature"}
)

// sigError is a failure of the signature check that says what failed in
// its own words and matches bpx.ErrSignature, without repeating that
// error's text after its own.
type sigError struct{ msg string }

func (e *sigError) Error() string { return e.msg }

// Is reports whether target is bpx.ErrSignature.
func (e *sigError) Is(target error) bool { return target == bpx.ErrSignature }

// The ways a file's signed Statement fails what the reader requires; each
// matches bpx.ErrSignature.
var (
	// ErrRequirement: the file's Statement does not meet the reader's
	// Requirement (another name, an older version), or no trusted key
	// allowed to sign the required name signed it.
	ErrRequirement error = &sigError{"sign: the file is not what the reader requires"}

	// ErrExpired: the file's Statement expired.
	ErrExpired error = &sigError{"sign: the file's signature expired"}
)
