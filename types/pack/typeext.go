package pack

import (
	"encoding/binary"
	"fmt"
)

// Arch is the target architecture stored in byte 0 of a package's TypeExt
// (spec rev 2 §14.2.1).
type Arch uint8

// Known architectures. Like the reference SDK, Open refuses a package whose
// architecture or platform byte is above the last known code, unless
// IgnoreTypeExt is given.
const (
	ArchX86_64  Arch = 0
	ArchAArch64 Arch = 1
	ArchX86     Arch = 2
	ArchARMv7hl Arch = 3
	ArchAny     Arch = 4
)

var archNames = [...]string{"x86_64", "aarch64", "x86", "armv7hl", "any"}

// String returns the spec's name of a, or "Arch(N)" for an unknown code.
func (a Arch) String() string {
	if int(a) < len(archNames) {
		return archNames[a]
	}
	return fmt.Sprintf("Arch(%d)", uint8(a))
}

// Platform is the target platform stored in byte 1 of a package's TypeExt
// (spec rev 2 §14.2.2).
type Platform uint8

// Known platforms.
const (
	PlatformLinux   Platform = 0
	PlatformMacOS   Platform = 1
	PlatformWindows Platform = 2
	PlatformAndroid Platform = 3
	PlatformAny     Platform = 4
)

var platformNames = [...]string{"Linux", "MacOS", "Windows", "Android", "Any"}

// String returns the spec's name of p, or "Platform(N)" for an unknown code.
func (p Platform) String() string {
	if int(p) < len(platformNames) {
		return platformNames[p]
	}
	return fmt.Sprintf("Platform(%d)", uint8(p))
}

// Generator is the two-character generator code in bytes 2–3 of a package's
// TypeExt (spec rev 2 §14.2.3). It tells readers what to expect in the
// metadata section. Any two bytes are allowed.
type Generator [2]byte

// Known generator codes.
var (
	GeneratorFPKG      = Generator{'P', 'K'} // fpkg, and the reference SDK 1.0.0 default
	GeneratorEngine    = Generator{'B', 'P'} // BlockProject 3D engine (in the spec; no file is known)
	GeneratorDebug     = Generator{'B', 'D'} // BPX debug tools (bpx-tools bpxp)
	GeneratorReference = Generator{'P', 'H'} // the reference SDK's default since 2.0.0 (not in the spec)
	GeneratorGoBPX     = Generator{'G', 'B'} // this module's default
)

// String returns the two bytes as text when they are printable ASCII, and
// as hex otherwise.
func (g Generator) String() string {
	if g[0] >= 0x20 && g[0] < 0x7f && g[1] >= 0x20 && g[1] < 0x7f {
		return string(g[:])
	}
	return fmt.Sprintf("%02x%02x", g[0], g[1])
}

// Description names the program known to write g, or "" for an unknown code.
func (g Generator) Description() string {
	switch g {
	case GeneratorFPKG:
		return "FPKG"
	case GeneratorEngine:
		return "BlockProject 3D Engine"
	case GeneratorDebug:
		return "BPX debug tools"
	case GeneratorReference:
		return "BPX reference SDK"
	case GeneratorGoBPX:
		return "gobpx"
	}
	return ""
}

// TypeExt is the decoded TypeExt of a revision 1 or 2 package. Reserved
// holds bytes 4–15, which the spec requires to be zero.
type TypeExt struct {
	Arch      Arch
	Platform  Platform
	Generator Generator
	Reserved  [12]byte
}

// ParseTypeExt decodes the 16 TypeExt bytes of a package main header.
func ParseTypeExt(b [16]byte) TypeExt {
	t := TypeExt{Arch: Arch(b[0]), Platform: Platform(b[1]), Generator: Generator{b[2], b[3]}}
	copy(t.Reserved[:], b[4:])
	return t
}

// Marshal encodes t into the 16 TypeExt bytes of a main header, like the
// Marshal methods of the other types' TypeExt.
func (t TypeExt) Marshal() [16]byte {
	var b [16]byte
	b[0], b[1], b[2], b[3] = byte(t.Arch), byte(t.Platform), t.Generator[0], t.Generator[1]
	copy(b[4:], t.Reserved[:])
	return b
}

// Check reports an architecture or platform code the spec does not define
// (the reference SDK refuses to open such a package) as a *bpx.FormatError
// at the TypeExt's offset in the main header.
func (t TypeExt) Check() error {
	if t.Arch > ArchAny {
		return formatError(typeExtOffset, "invalid architecture code %d", uint8(t.Arch))
	}
	if t.Platform > PlatformAny {
		return formatError(typeExtOffset+1, "invalid platform code %d", uint8(t.Platform))
	}
	return nil
}

// typeExtOffset is the offset of TypeExt in a version 1/2 main header.
const typeExtOffset = 24

// DraftTypeExt is the TypeExt of a version-0 draft package: the number of
// assets and the graphics API compatibility flags.
type DraftTypeExt struct {
	AssetCount         uint32
	CompatibilityFlags uint8 // DraftDirectX | DraftOpenGL | DraftVulkan | DraftMetal
}

// Compatibility flags of a version-0 draft package.
const (
	DraftDirectX = 0x1
	DraftOpenGL  = 0x2
	DraftVulkan  = 0x4
	DraftMetal   = 0x8
)

func parseDraftTypeExt(b [16]byte) DraftTypeExt {
	return DraftTypeExt{AssetCount: binary.LittleEndian.Uint32(b[:4]), CompatibilityFlags: b[4]}
}
