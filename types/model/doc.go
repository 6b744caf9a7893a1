// Package model reads and writes BPX models (type 'M', spec rev 2 §12):
// vertex arrays with optional index arrays, a skeleton, per-frame bone
// transforms and an opaque animation section.
//
// No other implementation of this type exists (the reference SDK never built
// it), so the byte layout below is this package's reading of the spec. Where
// the spec is silent or contradicts itself, the layout is what a
// little-endian C compiler (GCC, Clang, MSVC) produces for the structures of
// its field tables: a section is the header structure (sizeof, trailing
// padding included) followed directly by its array; padding is written as
// zero and ignored on read, while the spec's Reserved fields must be zero.
//
// # TypeExt
//
// Bytes 0-7: VertexFormatHash, uint64 LE, the §7 hash (the 64-bit DJB2 of
// sd.Hash) of the vertex format asset's virtual path. Bytes 8-15: reserved,
// zero.
//
// # Sections
//
//	type  name            layout
//	2     VertexArray     24-byte header, then VertexCount × VertexSize bytes
//	3     IndexArray      uint32 IndexCount, then IndexCount uint32 vertex indices
//	4     BoneArray       uint16 BoneCount (1 to 1024), then 28-byte bones
//	5     FrameArray      44-byte bone transforms, no header (see below)
//	6     AnimationArray  raw bytes: the spec defines no layout
//	255   Strings         bone names
//
// The VertexArray header is MaterialHash uint64, VertexCount uint32,
// IndexArray uint32 and Reserved uint32: 20 bytes of fields, which C pads to
// 24 because of the uint64 (the spec's diagram shows only 16). The vertex
// structure is defined by an external asset, so VertexSize is supplied by the
// caller of [Read]. A bone is Head float32×3, Tail float32×3 and a Name
// pointer into the Strings section; bones start right after the 2-byte
// count (the header structure has no padding of its own). A bone transform
// is Rotation float32×4 (a quaternion), Position float32×3, Scale float32×3
// and BoneId uint32.
//
// The spec says a FrameArray starts with "a header" but never defines one,
// and the figure that shows how frames are organised is missing from the
// text; this package therefore reads the section as a plain array of bone
// transforms, in file order, and leaves grouping them into frames to the
// caller. The AnimationArray has no definition at all and is kept as raw
// bytes.
//
// # Section links
//
// A VertexArray's IndexArray field names an IndexArray section by its
// position in the section table, and §12.3.3 makes 0 mean "no IndexArray".
// Since 0 must mean none, the only consistent reading is 1-based: the value
// is the 0-based section index plus 1. (Packages, the only type with
// reference files, use 0-based indexes, but they have no "none" value.)
// A link to a missing section or to a section that is not an IndexArray is
// an error. In memory, a [VertexArray] links to its *[IndexArray] by
// pointer, so callers never handle section numbers.
//
// # Validation
//
// [Read] and [Model.Validate] check that counts fit their sections exactly,
// that every index of a linked IndexArray is below its VertexArray's vertex
// count, that the bone count is in [1, 1024], that every BoneId names a bone,
// that each single-time section appears once and that a VertexArray exists.
// The spec's remark that a vertex count "should be" a multiple of 3 is not
// enforced (indexed meshes need not follow it).
//
// # Errors
//
// Malformed files give a *bpx.FormatError matching both bpx.ErrFormat and
// [ErrFormat], naming the section and the byte offset in its uncompressed
// data (or the file offset for the main header, whose TypeExt starts at byte
// 24). Invalid models given to Validate, Write or Encode, and bad arguments,
// match [ErrInvalid].
//
// # Security
//
// [Read] treats the file as hostile and never panics. Section bodies are read
// whole with bpx.Section.Data, so memory is bounded by the sections' decoded
// sizes (limit them with bpx.WithMaxSectionSize). Every count is checked
// against the section size before anything is allocated, and the decoded
// structures take at most about 1.5 times the bytes of their sections (a
// 28-byte bone becomes a 40-byte struct, a 44-byte transform a 48-byte one;
// vertex data is shared, not copied), so reading peaks below 2.5 times the
// decoded section sizes. Bones are limited to [MaxBones]. Time is linear in
// the input.
package model
