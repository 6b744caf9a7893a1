package sign

import (
	"fmt"

	"github.com/gobpx/bpx"
)

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

// ChunkError is the error of a chunk whose bytes do not match their
// signed digest: it matches ErrTampered and bpx.ErrSignature, and says
// which bytes of the file, so that a reader can tell what they hold (the
// changed byte is somewhere in them, not necessarily in what was read).
type ChunkError struct {
	Chunk    int64 // the chunk's index in the data range
	Off, End int64 // the chunk's bytes in the file: [Off, End)
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("%v: chunk %d, bytes [%d, %d), does not match its SHA-256 digest", ErrTampered, e.Chunk, e.Off, e.End)
}

// Is reports whether target is ErrTampered or bpx.ErrSignature.
func (e *ChunkError) Is(target error) bool {
	return target == ErrTampered || target == bpx.ErrSignature
}
