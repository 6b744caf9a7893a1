package texture

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/gobpx/bpx"
)

// typeExtOffset is the file offset of the TypeExt field in the main header.
const typeExtOffset = 24

// Format is the pixel format of a texture (spec rev 2 §11.3.1).
type Format uint8

// Pixel formats.
const (
	FormatRGB       Format = 1 // 3 bytes: R, G, B
	FormatRGBA      Format = 2 // 4 bytes: R, G, B, straight alpha
	FormatGreyScale Format = 3 // 1 byte of grey level
	FormatFloat     Format = 4 // 1 little-endian float32
)

// PixelSize returns the size of one pixel in bytes, or 0 for an unknown
// format.
func (f Format) PixelSize() int {
	switch f {
	case FormatRGB:
		return 3
	case FormatRGBA, FormatFloat:
		return 4
	case FormatGreyScale:
		return 1
	}
	return 0
}

// String returns the spec's name of f, or "Format(N)".
func (f Format) String() string {
	switch f {
	case FormatRGB:
		return "RGB"
	case FormatRGBA:
		return "RGBA"
	case FormatGreyScale:
		return "GreyScale"
	case FormatFloat:
		return "Float"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Flags are the texture flags (spec rev 2 §11.3.2), or'ed together.
type Flags uint8

// Texture flags.
const (
	FlagArray      Flags = 0x1 // a texture array of TypeExt.Array layers
	FlagCompressed Flags = 0x2 // compress on the GPU when loading
	FlagCubeMap    Flags = 0x4 // a cube map: 6 layers
	knownFlags           = FlagArray | FlagCompressed | FlagCubeMap
)

// String returns the flag names joined by "|", "0" for none, with unknown
// bits in hexadecimal.
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	var parts []string
	for _, n := range []struct {
		f    Flags
		name string
	}{{FlagArray, "Array"}, {FlagCompressed, "Compressed"}, {FlagCubeMap, "CubeMap"}} {
		if f&n.f != 0 {
			parts = append(parts, n.name)
		}
	}
	if rest := f &^ knownFlags; rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

// Size limits of a texture side, in pixels: 2^(k+1) for a 4-bit k.
const (
	MinSide = 2
	MaxSide = 1 << 16
)

// MaxPixelArraySize is the largest PixelArray a section can hold
// (4 GiB - 1); larger TypeExts are invalid.
const MaxPixelArraySize = math.MaxUint32

// CubeFaces is the number of layers of a cube map.
const CubeFaces = 6

// TypeExt is the decoded TypeExt of a texture (spec rev 2 §11.2). The layout
// is given in the package documentation.
type TypeExt struct {
	Array   uint16 // layer count of an array texture (see Layers)
	WidthK  uint8  // width is 2^(WidthK+1) pixels, WidthK ≤ 15
	HeightK uint8  // height is 2^(HeightK+1) pixels, HeightK ≤ 15
	Format  Format
	Flags   Flags
	MipMaps uint8 // number of mip maps to generate when loading
}

// Width returns the width in pixels, 2^(WidthK+1).
func (t TypeExt) Width() int { return 2 << (t.WidthK & 0xF) }

// Height returns the height in pixels, 2^(HeightK+1).
func (t TypeExt) Height() int { return 2 << (t.HeightK & 0xF) }

// Layers returns the number of layers the PixelArray holds: 6 for a cube
// map, Array (at least 1) for a texture array, else 1.
func (t TypeExt) Layers() int {
	switch {
	case t.Flags&FlagCubeMap != 0:
		return CubeFaces
	case t.Flags&FlagArray != 0 && t.Array > 0:
		return int(t.Array)
	}
	return 1
}

// LayerSize returns the size of one layer in bytes (0 for an unknown format).
func (t TypeExt) LayerSize() int64 {
	return int64(t.Width()) * int64(t.Height()) * int64(t.Format.PixelSize())
}

// PixelArraySize returns the size the PixelArray section must have.
func (t TypeExt) PixelArraySize() int64 { return t.LayerSize() * int64(t.Layers()) }

// Validate reports whether t can be stored: k values of at most 15, a known
// format, known flags, an Array of 6 for a cube map, and pixels that fit in a
// section (MaxPixelArraySize). Errors match
// ErrInvalid.
func (t TypeExt) Validate() error {
	if _, what := t.check(); what != "" {
		return invalidf("%s", what)
	}
	return nil
}

// check returns the TypeExt byte at fault and a description, or "".
func (t TypeExt) check() (int, string) {
	switch {
	case t.WidthK > 15:
		return 2, fmt.Sprintf("width exponent %d above 15", t.WidthK)
	case t.HeightK > 15:
		return 2, fmt.Sprintf("height exponent %d above 15", t.HeightK)
	case t.Format.PixelSize() == 0:
		return 3, fmt.Sprintf("unknown format %d", uint8(t.Format))
	case t.Flags&^knownFlags != 0:
		return 3, fmt.Sprintf("unknown flags %#x", uint8(t.Flags&^knownFlags))
	case t.Flags&FlagCubeMap != 0 && t.Array != CubeFaces:
		return 0, fmt.Sprintf("cube map with Array %d, want 6", t.Array)
	case t.PixelArraySize() > MaxPixelArraySize:
		return 2, fmt.Sprintf("%v needs %d bytes of pixels, more than a section holds", t, t.PixelArraySize())
	}
	return 0, ""
}

// Marshal returns the 16-byte TypeExt. It does not validate t: fields wider
// than their bit-field are truncated (call Validate first).
func (t TypeExt) Marshal() [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint16(b[0:], t.Array)
	b[2] = t.WidthK&0xF | t.HeightK<<4
	b[3] = uint8(t.Format)&0xF | uint8(t.Flags)<<4
	b[4] = t.MipMaps
	return b
}

// ParseTypeExt decodes and validates a texture TypeExt. Errors are
// *bpx.FormatError values naming the file offset of the bad byte (the
// TypeExt starts at byte 24) and matching ErrFormat: reserved bytes 5 to 15
// must be zero, and the decoded TypeExt must pass Validate.
func ParseTypeExt(ext [16]byte) (TypeExt, error) {
	t := TypeExt{
		Array:   binary.LittleEndian.Uint16(ext[0:]),
		WidthK:  ext[2] & 0xF,
		HeightK: ext[2] >> 4,
		Format:  Format(ext[3] & 0xF),
		Flags:   Flags(ext[3] >> 4),
		MipMaps: ext[4],
	}
	for i := 5; i < len(ext); i++ {
		if ext[i] != 0 {
			return t, formatErr(-1, int64(typeExtOffset+i), "texture TypeExt reserved byte %d is %#02x, want 0", i, ext[i])
		}
	}
	if i, what := t.check(); what != "" {
		return t, formatErr(-1, int64(typeExtOffset+i), "texture TypeExt: %s", what)
	}
	return t, nil
}

// String describes t on one line, e.g. "256x256 RGBA, 6 layers, flags
// CubeMap, 0 mip maps".
func (t TypeExt) String() string {
	s := fmt.Sprintf("%dx%d %v", t.Width(), t.Height(), t.Format)
	if n := t.Layers(); n == 1 {
		s += ", 1 layer"
	} else {
		s += fmt.Sprintf(", %d layers", n)
	}
	return s + fmt.Sprintf(", flags %v, %d mip maps", t.Flags, t.MipMaps)
}

// DescribeTypeExt describes a texture TypeExt on one line for display, such
// as "texture 256x256 RGBA, 1 layer, flags 0, 0 mip maps", or "invalid
// texture TypeExt: ..." when ParseTypeExt rejects it. It never panics.
func DescribeTypeExt(ext [16]byte) string {
	t, err := ParseTypeExt(ext)
	if fe, ok := err.(*bpx.FormatError); ok {
		return fmt.Sprintf("invalid %s (byte %d)", fe.What, fe.Offset-typeExtOffset)
	}
	return "texture " + t.String()
}

// sideExponent returns k with 2^(k+1) == n, or false when n is not a power of
// two in [MinSide, MaxSide].
func sideExponent(n int) (uint8, bool) {
	if n < MinSide || n > MaxSide || n&(n-1) != 0 {
		return 0, false
	}
	k := uint8(0)
	for 2<<k != n {
		k++
	}
	return k, true
}
