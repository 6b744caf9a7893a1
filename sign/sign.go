package sign

import "io"

// SectionType is the section type of the signature section, the last
// section of a signed file.
const SectionType = 0xF0

// ChunkSize is the chunk size of the manifests Sign writes.
const ChunkSize = 64 << 10

// MaxSignatures is the most signatures a signature section holds.
const MaxSignatures = 64

// MaxSectionSize bounds the signature section Open reads: a manifest of a
// file of 4 TiB in 64 KiB chunks, and the signatures.
const MaxSectionSize = 64<<20 + 1<<20

// Sign writes to dst the BPX file src (size bytes) signed by keys: its
// bytes as they are, but that the section table gains the signature
// section (so every section moves by 24 bytes, which the manifest states)
// and the signature section is appended. A src that is already signed is
// signed anew: if its manifest still matches, its signatures are kept and
// keys' are added (a key signing twice counts once); otherwise they are
// dropped. src is read twice: once to hash, once to copy.
func Sign(dst io.Writer, src io.ReaderAt, size int64, keys ...*PrivateKey) error {
	return errTODO
}

// SignFile signs the BPX file name in place (see Sign), replacing it
// atomically with bpx.SaveFile, so that a failure leaves it as it was.
func SignFile(name string, keys ...*PrivateKey) error {
	return errTODO
}

// Strip writes to dst the BPX file src without its signature section, if
// it has one, and reports whether it had.
func Strip(dst io.Writer, src io.ReaderAt, size int64) (bool, error) {
	return false, errTODO
}
