package bpx

import "encoding/binary"

// Sizes of the fixed structures of a BPX container (versions 1 and 2).
const (
	MainHeaderSize    = 40 // bytes in the main header
	SectionHeaderSize = 24 // bytes in one section header
)

// Versions of the container format.
const (
	Version1 = 1 // rev 1 (packages with inline object headers)
	Version2 = 2 // rev 2, the current version, written by default
	// VersionZstd (0x8002) is version 2 whose sections may be compressed
	// with zstd (FlagZstd): this module's extension for games that ship
	// their data, which decodes several times faster than xz. It is no
	// version of the specification, and lies far from them so that no
	// later one can mean something else by it. The reference SDK refuses
	// the file ("unsupported version 32770"), as it must: it would read
	// the zstd bytes as data. A Writer writes it when a section is
	// compressed with CompressZstd, never otherwise.
	VersionZstd    = 0x8002
	CurrentVersion = Version2
)

// Magic is the three bytes every BPX file starts with ("BPX"), which the
// specification calls the signature. It has nothing to do with signing
// (package sign, ErrSignature).
var Magic = [3]byte{'B', 'P', 'X'}

// Signature is the old name of Magic.
//
// Deprecated: use Magic; "signature" now means a cryptographic signature
// only (package sign, ErrSignature).
var Signature = Magic

// Well-known BPX type bytes (MainHeader.Type).
const (
	TypePackage = 'P'
	TypeShader  = 'S'
	TypeTexture = 'T'
	TypeModel   = 'M'
	TypeScene   = 'C'
)

// Section flags (SectionHeader.Flags).
const (
	FlagZlib  = 0x01 // stored bytes are a zlib (RFC 1950) stream
	FlagXZ    = 0x02 // stored bytes are an .xz stream; wins over FlagZlib
	FlagCRC32 = 0x04 // Checksum is a CRC32 of the uncompressed bytes
	FlagWeak  = 0x08 // Checksum is the weak sum of the uncompressed bytes; wins over FlagCRC32
	// FlagZstd: the stored bytes are a zstd stream (RFC 8878), in a
	// VersionZstd file only; wins over FlagXZ and FlagZlib.
	FlagZstd = 0x10
)

// Standard section types shared by every BPX type.
const (
	SectionTypeStrings        = 0xFF // NUL-terminated UTF-8 strings
	SectionTypeStructuredData = 0xFE // BPXSD
	SectionTypeTable          = 0xFD // experimental table section (post rev 2)
)

// MainHeader is the 40-byte header at the start of every BPX file.
type MainHeader struct {
	Type       uint8    // BPX type, e.g. 'P' for a package
	Checksum   uint32   // weak checksum of this header and the section table
	FileSize   uint64   // total file size as written (never trusted on read)
	SectionNum uint32   // number of section headers
	Version    uint32   // format version: 1, 2 or VersionZstd
	TypeExt    [16]byte // type-specific extension
}

// SectionHeader is one 24-byte entry of the section table.
type SectionHeader struct {
	Pointer  uint64 // absolute file offset of the stored bytes
	CSize    uint32 // stored (possibly compressed) size
	USize    uint32 // uncompressed size
	Checksum uint32 // checksum of the uncompressed bytes, 0 if unchecked
	Type     uint8  // section type
	Flags    uint8  // FlagZlib, FlagXZ, FlagZstd, FlagCRC32, FlagWeak
}

// Compressed reports whether the section is stored compressed (xz, zlib or
// zstd).
func (h *SectionHeader) Compressed() bool { return h.Flags&(FlagXZ|FlagZlib|FlagZstd) != 0 }

// StoredSize is the number of bytes the section occupies in the file: CSize
// when compressed, USize when raw (the reference reads USize bytes of a raw
// section and ignores CSize).
func (h *SectionHeader) StoredSize() uint32 {
	if h.Compressed() {
		return h.CSize
	}
	return h.USize
}

// Marshal encodes the main header into its 40-byte form.
func (h *MainHeader) Marshal() [MainHeaderSize]byte {
	var b [MainHeaderSize]byte
	copy(b[0:3], Magic[:])
	b[3] = h.Type
	binary.LittleEndian.PutUint32(b[4:], h.Checksum)
	binary.LittleEndian.PutUint64(b[8:], h.FileSize)
	binary.LittleEndian.PutUint32(b[16:], h.SectionNum)
	binary.LittleEndian.PutUint32(b[20:], h.Version)
	copy(b[24:], h.TypeExt[:])
	return b
}

// unmarshalMainHeader decodes b (40 bytes). The signature is not checked.
func UnmarshalMainHeader(b []byte) MainHeader {
	var h MainHeader
	h.Type = b[3]
	h.Checksum = binary.LittleEndian.Uint32(b[4:])
	h.FileSize = binary.LittleEndian.Uint64(b[8:])
	h.SectionNum = binary.LittleEndian.Uint32(b[16:])
	h.Version = binary.LittleEndian.Uint32(b[20:])
	copy(h.TypeExt[:], b[24:40])
	return h
}

// Marshal encodes the section header into its 24-byte form (Reserved = 0).
func (h *SectionHeader) Marshal() [SectionHeaderSize]byte {
	var b [SectionHeaderSize]byte
	binary.LittleEndian.PutUint64(b[0:], h.Pointer)
	binary.LittleEndian.PutUint32(b[8:], h.CSize)
	binary.LittleEndian.PutUint32(b[12:], h.USize)
	binary.LittleEndian.PutUint32(b[16:], h.Checksum)
	b[20] = h.Type
	b[21] = h.Flags
	return b
}

// UnmarshalSectionHeader decodes the 24-byte section header at the start
// of b, as Marshal encodes it (Reserved is not kept); b must hold at least
// SectionHeaderSize bytes.
func UnmarshalSectionHeader(b []byte) SectionHeader {
	return SectionHeader{
		Pointer:  binary.LittleEndian.Uint64(b[0:]),
		CSize:    binary.LittleEndian.Uint32(b[8:]),
		USize:    binary.LittleEndian.Uint32(b[12:]),
		Checksum: binary.LittleEndian.Uint32(b[16:]),
		Type:     b[20],
		Flags:    b[21],
	}
}

// HeaderChecksum computes the weak header checksum of a file: its main
// header (MainHeaderSize bytes of main) with the Checksum field taken as
// zero, plus every byte of the raw section table (including the Reserved
// bytes as stored). Tools that write a header themselves, as package
// sign does, use it; NewReader checks it.
func HeaderChecksum(main []byte, table []byte) uint32 {
	sum := WeakChecksum(0, main[0:4])
	sum = WeakChecksum(sum, main[8:MainHeaderSize])
	return WeakChecksum(sum, table)
}
