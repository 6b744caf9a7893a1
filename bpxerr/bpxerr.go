// Package bpxerr holds the sentinel errors shared by every package of this
// module. Every error returned for bad input, a failed check, an
// unsupported feature or an exceeded limit matches one of them with
// errors.Is.
//
// The root package bpx re-exports them (bpx.ErrFormat is ErrFormat), so
// most programs never import this package. It exists so that the packages
// usable without the container, such as sd and strings, can classify their
// errors without pulling in the container and its compression libraries:
// it imports nothing but the standard library's errors package.
package bpxerr

import "errors"

var (
	// ErrFormat is returned when the input is not well formed: a bad
	// signature, a truncated header or table, a section that points
	// outside the file, a stream that decodes to the wrong size, or
	// malformed section content.
	ErrFormat = errors.New("bpx: invalid format")

	// ErrChecksum is returned when a header or section checksum does not
	// match the data.
	ErrChecksum = errors.New("bpx: checksum mismatch")

	// ErrUnsupported is returned for a version, compression or feature
	// that is not implemented (or that an option disabled).
	ErrUnsupported = errors.New("bpx: unsupported feature")

	// ErrTooLarge is returned when the input exceeds one of the
	// configured or documented limits.
	ErrTooLarge = errors.New("bpx: limit exceeded")

	// ErrSignature is returned when a file that must be signed is not,
	// is signed by no trusted key, or does not match its signature.
	ErrSignature = errors.New("bpx: signature check failed")
)
