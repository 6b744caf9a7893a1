package model

import (
	"encoding/binary"
	"fmt"

	"github.com/gobpx/bpx"
)

// typeExtOffset is the file offset of the TypeExt field in the main header.
const typeExtOffset = 24

// TypeExt is the decoded TypeExt of a model (spec rev 2 §12.2).
type TypeExt struct {
	// VertexFormatHash is the §7 hash (sd.Hash) of the virtual path of the
	// vertex format asset that describes the vertex structure.
	VertexFormatHash uint64
}

// Marshal returns the 16-byte TypeExt.
func (t TypeExt) Marshal() [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], t.VertexFormatHash)
	return b
}

// ParseTypeExt decodes a model TypeExt. The reserved bytes 8 to 15 must be
// zero; otherwise the error is a *bpx.FormatError naming the file offset of
// the first non-zero byte and matching ErrFormat.
func ParseTypeExt(ext [16]byte) (TypeExt, error) {
	t := TypeExt{VertexFormatHash: binary.LittleEndian.Uint64(ext[:])}
	for i := 8; i < len(ext); i++ {
		if ext[i] != 0 {
			return t, formatErr(-1, int64(typeExtOffset+i), "model TypeExt reserved byte %d is %#02x, want 0", i, ext[i])
		}
	}
	return t, nil
}

// DescribeTypeExt describes a model TypeExt on one line for display, such as
// "model, vertex format hash 0x0000000000001505", or "invalid model TypeExt:
// ..." when the reserved bytes are not zero. It never panics.
func DescribeTypeExt(ext [16]byte) string {
	t, err := ParseTypeExt(ext)
	if fe, ok := err.(*bpx.FormatError); ok {
		return fmt.Sprintf("invalid %s (byte %d)", fe.What, fe.Offset-typeExtOffset)
	}
	return fmt.Sprintf("model, vertex format hash %#016x", t.VertexFormatHash)
}
