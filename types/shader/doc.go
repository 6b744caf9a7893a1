// Package shader reads and writes BPX shader packs (type 'S') in both
// layouts that exist: the one of the reference SDK 4 (BPX-rs), which every
// real file uses, and the one of spec rev 2 §13, which nothing else
// implements.
//
// # The reference SDK 4 layout: Pack
//
// [ReadPack], [WritePack] and [EncodePack] handle the layout the reference
// implements (a later "standard" revision than the spec files);
// [ReadSymbols] reads its symbols without the shaders:
//
//	TypeExt  bytes 0-7 AssemblyHash (uint64 LE), 8-9 symbol count (uint16 LE),
//	         10 Target, 11 Type ('A' assembly or 'P' pipeline), 12-15 zero
//	type 1   Shader: a stage byte (0 vertex, 1 hull, 2 domain, 3 geometry,
//	         4 pixel), then the shader code
//	type 2   SymbolTable: 12-byte symbols {name uint32 (Strings pointer),
//	         extended data uint32 (byte offset in the ExtendedData section,
//	         0x00FFFFFF for none), flags uint16, type uint8, register uint8
//	         (0xFF for none)}
//	type 3   ExtendedData: BPXSD objects, back to back
//	type 255 Strings: the symbol names
//
// Target codes are those of the reference since November 2021 (0x01 DX11 to
// 0x11 Metal, 0xFF Any); files written before renumber some targets. A
// symbol's extended data is read only when its flags have FlagExtendedData,
// as the reference does. [WritePack] writes the sections in the reference's
// order with its checksums, so that reference-generated/shader_pack.bpx of
// the shared samples comes out byte for byte.
//
// # The spec layout: SpecPack
//
// [ReadSpec], [WriteSpec] and [EncodeSpec] handle spec rev 2 §13:
//
//	TypeExt  bytes 0-7 VertexFormatHash64, 8-11 VertexFormatHash32,
//	         12 CompatibilityFlags, 13 NumConstants, 14-15 reserved zero
//	type 1   Shader: the shader code for one rendering API
//	type 2   Assembly, 36 bytes: Driver uint8, 3 reserved bytes, MinVersion,
//	         then the section links VertexShaderId, DomainShaderId,
//	         HullShaderId, GeometryShaderId, PixelShaderId, the binding count
//	         Bindings and the link BindingsId, all uint32
//	type 3   Bindings: 8-byte bindings {StageFlags int32, Type uint8,
//	         Register uint8, 2 reserved bytes}
//	type 4   MaterialConstants: NumConstants 8-byte constants {Name uint32
//	         (Strings pointer), Type uint8, 3 reserved bytes}
//	type 255 Strings: the constant names
//
// Where the spec is ambiguous this package follows the field tables, laid
// out as a little-endian C compiler lays out the structures (all naturally
// aligned, no padding needed): the Assembly diagram lists HullShaderId
// before DomainShaderId, the table (followed here) Domain before Hull.
// Section links are 1-based section-table positions with 0 meaning none,
// the only reading under which an absent stage (no hull shader, say) can be
// expressed, and the convention the spec states for the Model type; in
// memory they are pointers. A link to a missing section or to one of the
// wrong type, a binding count that differs from the linked Bindings
// section, unknown codes or flag bits and non-zero reserved fields are
// errors. At least one Assembly is required; MaterialConstants and Strings
// only when there are constants (WriteSpec always writes both).
//
// # Telling the layouts apart
//
// Both use type 'S' and section types 1, 2, 3 and 255 with different
// meanings. [Detect] decides from the TypeExt and the section table: a
// MaterialConstants section (type 4) exists only in the spec layout; else a
// TypeExt valid for SDK 4 whose first type-2 section is exactly 12 bytes
// per declared symbol is SDK 4; else a spec TypeExt with 36-byte type-2
// sections is the spec layout. [DescribeTypeExt], which sees only the
// TypeExt, prefers SDK 4 when the TypeExt fits it.
//
// # Errors
//
// Malformed files give a *bpx.FormatError matching both bpx.ErrFormat and
// [ErrFormat] (or wrapping a strings or sd error), naming the section and the
// byte offset in its uncompressed data, or the file offset for the main
// header (the TypeExt starts at byte 24; a version-0 draft file has only 8
// TypeExt bytes, so an error about a later one names byte 24 and says so).
// Packs that cannot be written match
// [ErrInvalid].
//
// # Security
//
// The readers treat the file as hostile and never panic. ReadPack and
// ReadSpec read section bodies whole with bpx.Section.Data, so memory is
// bounded by the sections' decoded sizes (limit them with
// bpx.WithMaxSectionSize); the decoded structures take at most a small
// multiple of those bytes. A few kilobytes of xz can decode to gigabytes of
// shader code, so whatever only lists or describes a pack should use
// ReadSymbols, which reads no Shader section and is bounded by the symbol
// count: the SymbolTable must be 12 bytes per symbol, checked against the
// section header before decompressing and never decompressed past it; the
// Strings and ExtendedData sections may decode to at most 256 bytes per
// symbol or 64 KiB, whichever is more (16 MiB for the most symbols a
// TypeExt can count), or the read fails with bpx.ErrTooLarge, before
// decompressing when the header tells the size (bpx.Section.DecodedSize);
// with SkipExtendedData the ExtendedData section is not read at all.
// Extended-data objects are decoded once per offset and may not overlap,
// so their decoding costs at most the ExtendedData section's size (times
// the sd package's bound of about 40 bytes of memory per input byte),
// however many symbols point into it; their nesting is limited to
// sd.DefaultMaxDepth. Time is linear in the bytes decompressed.
package shader
