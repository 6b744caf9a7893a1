package shader

import (
	"errors"
	"fmt"

	"github.com/gobpx/bpx"
)

// Sentinel errors, usable with errors.Is.
var (
	// ErrFormat is matched by every error the readers, Detect and the
	// TypeExt parsers return for a malformed shader pack, together with
	// bpx.ErrFormat.
	ErrFormat = errors.New("shader: invalid shader pack file")
	// ErrInvalid is matched by the errors of Validate, Write and Encode: the
	// pack cannot be stored as given.
	ErrInvalid = errors.New("shader: invalid shader pack")
)

// formatErr returns a *bpx.FormatError matching ErrFormat. section is the
// 0-based section index, or -1 for a file offset.
func formatErr(section int, off int64, format string, args ...any) error {
	return &bpx.FormatError{Offset: off, Section: section, What: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("shader: "+format+": %w", append(args, ErrInvalid)...)
}

// typeExtOffset is the file offset of the TypeExt field in the main header.
const typeExtOffset = 24

// v0TypeExtSize is the size of the TypeExt of a version-0 draft file, which
// ends its 32-byte main header; the other bytes of Header.TypeExt are 0.
const v0TypeExtSize = 8

// headerTypeExtErr places an error of ParsePackTypeExt or ParseSpecTypeExt,
// which name offsets of the 40-byte main header, in r's header: a TypeExt
// byte that a version-0 draft file does not have is reported at the start
// of its 8-byte TypeExt, saying so.
func headerTypeExtErr(r *bpx.Reader, err error) error {
	var fe *bpx.FormatError
	if r.Header.Version != 0 || !errors.As(err, &fe) || fe.Section != -1 || fe.Offset < typeExtOffset+v0TypeExtSize {
		return err
	}
	return &bpx.FormatError{Offset: typeExtOffset, Section: -1, Err: fe.Err,
		What: fmt.Sprintf("%s (TypeExt byte %d: a version-0 file has an %d-byte TypeExt, the rest reads as 0)", fe.What, fe.Offset-typeExtOffset, v0TypeExtSize)}
}

// tableOffset returns the file offset of entry i of r's section table.
// Version-0 draft files have a 32-byte header and 16-byte entries.
func tableOffset(r *bpx.Reader, i int) int64 {
	if r.Header.Version == 0 {
		return 32 + 16*int64(i)
	}
	return bpx.MainHeaderSize + bpx.SectionHeaderSize*int64(i)
}
