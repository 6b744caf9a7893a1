// Package bo3d reads and writes BO3D, the mesh and animation format of the
// bOGL-2 engine for BlitzPlus, and converts it to and from BPX models.
//
// A BO3D file is a 20-byte header and a flat list of entity definitions: a
// pivot (64-byte header) or a mesh (92-byte header), each followed by up to
// seven packed lists in this order: keyframes, name, vertices (UV, normal,
// position as 16- or 32-bit floats), vertex colours, triangles (unsigned
// 16-bit indices), texture name and bones (rigid vertex ranges). Every list
// starts 4-aligned and is zero-padded. The first entity is the root; a
// parent index always refers to an earlier entity.
//
// The package follows what bOGL-2's converter writes and its loader reads
// where they differ from the published specification: the magic is "BO3D",
// the pivot header is 64 bytes (not 60), quaternions are stored w, x, y, z,
// triangle indices are unsigned and the entity colour is kept as its 4 raw
// bytes. 16-bit vertex floats are IEEE 754 binary16 decoded exactly,
// subnormals included (bOGL flushes them), and encoded with rounding to
// nearest even, saturating finite values at ±65504 and keeping infinities
// and NaNs (bOGL's converter truncates).
//
// [Decode] and [File.AppendBinary] are exact inverses for files this package
// wrote: decoding and re-encoding gives the same bytes. Files from other
// writers re-encode to the canonical form: zero padding, no bytes after the
// last list of an entity or after the last entity, entity-list length equal
// to the sum of the entity sizes.
//
// # Conversion to BPX models
//
// [ToModel] and [WriteModel] turn a file into a BPX model ('M', package
// types/model): each mesh a VertexArray in [VertexFormatPNU] or
// [VertexFormatPNUC] (named by their hashes in the TypeExt) with an
// IndexArray of its triangles, every entity a bone (names in the Strings
// section), every keyframe a FrameArray transform with its frame number in
// the AnimationArray, and the entity hierarchy with everything else in an SD
// metadata section. [ReadModel] and [FromModel] go back. BO3D → BPX → BO3D
// gives an equal File, except that a signalling NaN in an entity transform
// or alpha becomes quiet. Not carried over, in each direction:
//
//   - BO3D → BPX, for a reader that ignores the SD section: the hierarchy
//     and local transforms of entities (bones keep only their bind-pose head
//     and tail), texture names (hashed into MaterialHash only), entity colour,
//     alpha and FX flags, which vertices each bone moves, the vertex float
//     width and the format version. Coordinates stay in bOGL's convention
//     (no conversion to BPX's left-handed Z-up axes), and keyframes are not
//     resampled into every frame. Files with more than 1024 entities (the
//     BoneArray limit) or that fail [File.Validate] are not converted.
//   - BPX → BO3D, for a model without this package's metadata: bone tails,
//     material hashes, vertex colour alpha and sections other than the model's
//     are dropped; there is no hierarchy (meshes and bone pivots hang from a
//     root pivot); frame numbers come from the AnimationArray only when it
//     holds one int32 per transform. Vertex formats other than the two above
//     and meshes over 65536 vertices cannot be converted.
//
// # Errors
//
// Decode returns a [*FormatError] naming the entity and the byte offset for
// every check bOGL's loader makes (magic, version at most 100, a non-zero
// entity count, vertex float width 16 or 32, entity sizes at least the
// header and within the file, no negative counts, every list inside its
// entity) and for those it should make: the entity count and entity-list
// length must fit in the file, list sizes include their padding (the loader
// leaves a 1-3 byte over-read there), and a parent index must be -1 or an
// earlier entity (bOGL silently attaches such entities to the root
// instead). Errors match [ErrFormat], and [ErrUnsupported] for a newer
// version or another float width. [File.Validate] additionally checks the
// references between lists (triangle indices, bone ranges and entities,
// colour counts, keyframe order); Encode and Validate errors match
// [ErrInvalid].
//
// # Security
//
// Decode treats its input as hostile. It never panics and runs in time
// linear in the input. Every count is checked against the bytes that
// remain in its entity before anything is allocated, so the decoded File
// takes at most 3 bytes of memory per input byte: a
// 16-byte half-float vertex becomes a 32-byte Vertex, a 64-byte pivot an
// Entity of about 100 bytes. [Read] reads at most [MaxFileSize] bytes
// (the 20-byte header plus the largest entity list an int32 length can
// describe) and returns [ErrTooLarge] beyond that; it sizes its buffer
// from the header's entity-list length only up to 1 MiB, so a lying
// header cannot make it allocate more than the input holds.
package bo3d
