package sign

import "io"

// CacheChunks is how many verified chunks a Verified keeps.
const CacheChunks = 16

// Verified is a signed file whose signature by a trusted key checked and
// whose header and section table match its manifest. As an io.ReaderAt it
// returns only bytes that match the manifest: each read is served from
// whole chunks hashed and compared first; a chunk that does not match is
// an error matching ErrTampered and bpx.ErrSignature, and none of its
// bytes are returned. It is safe for concurrent use.
type Verified struct {
	// unexported fields
}

// Open checks that the BPX file r (size bytes) is signed by a key of
// trusted and matches its manifest, and returns the file as a Verified.
// An unsigned file is ErrUnsigned, one signed by no key of trusted that
// verifies ErrUntrusted, one that does not match ErrTampered; all match
// bpx.ErrSignature. Open reads the main header, the section table and
// the signature section, not the data.
func Open(r io.ReaderAt, size int64, trusted *KeyRing) (*Verified, error) {
	return nil, errTODO
}

// ReadAt implements io.ReaderAt over the verified file.
func (v *Verified) ReadAt(p []byte, off int64) (int, error) { return 0, errTODO }

// Size returns the file's size.
func (v *Verified) Size() int64 { return 0 }

// Signers returns the trusted keys whose signatures verified, as the
// KeyRing names them, in the order of the signatures.
func (v *Verified) Signers() []PublicKey { return nil }

// VerifyAll reads and checks every chunk of the file, as a whole-file
// check does (bpx verify): nil when every byte matches.
func (v *Verified) VerifyAll() error { return errTODO }

// Signature is one signature of a file, as Inspect finds it.
type Signature struct {
	Key   PublicKey // the key that the signature names
	Valid bool      // the signature verifies over the manifest
}

// Status is what Inspect finds in a file: who signed it, whether its
// signatures verify and whether it matches its manifest.
type Status struct {
	Signed     bool        // the file has a signature section
	Signatures []Signature // in their stored order
	Matches    bool        // header, table and length match the manifest (chunks are not read)
	Problem    error       // why the file does not match, or the section is malformed; nil otherwise
}

// Inspect reports who signed the file r and whether it verifies, trusting
// no key: for bpx info and the explorer. It reads what Open reads; an
// error is returned only when r cannot be read.
func Inspect(r io.ReaderAt, size int64) (*Status, error) { return nil, errTODO }
