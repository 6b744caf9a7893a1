// Package sd implements BPXSD, the structured data format of BPX sections
// of type 0xFE (spec rev 2 §10.2), used for package metadata and shader
// symbol extended data.
//
// A BPXSD document is an [Object]: up to 255 properties keyed by the 64-bit
// DJB2 [Hash] of their name, each holding a [Value] of one of fifteen
// kinds: Null, Bool, Uint8 to Uint64, Int8 to Int64, Float32, Float64,
// String, Array (up to 255 values) and Object. Names themselves are not
// stored, except in an optional "__debug__" array of strings that lets a
// reader show them; [Decode] resolves those names and
// [WithDebugNames] writes them.
//
// The package works on byte slices and does not depend on the container
// package bpx or on any compression library, so that BPXSD can serve
// outside BPX files (a network protocol, a save file), as the spec intends.
// Its errors still match bpx.ErrFormat and bpx.ErrTooLarge, which are the
// sentinels of the leaf package bpxerr.
//
// Objects keep insertion order, so encoding is reproducible (the reference
// implementation writes keys in random hash-map order). Decoding keeps the
// order of the input.
//
// Duplicate keys: when an object repeats a key, the last value wins, as in
// the reference (a hash map insert), and the key keeps its first position.
// Every decoding path follows this rule: [Decode] keeps only the last
// value, [Unmarshal] reads past the earlier entries without storing them
// (so an earlier value of the wrong type is no error, and an earlier object
// leaves no fields behind), and [UnmarshalValue] sees the decoded object.
// Earlier values must still be well-formed BPXSD.
//
// Beyond the wire codec, [Marshal] and [Unmarshal] map Go values to BPXSD
// the way encoding/json does, with `sd:"name,omitempty"` struct tags and
// integer widths preserved (Marshal writes bytes directly; [MarshalValue]
// and [UnmarshalValue] convert to and from a Value), and [MarshalTypedJSON]/[UnmarshalTypedJSON]
// give a lossless JSON form; [Object.MarshalJSON] gives a plain one.
//
// Bool bytes: the reference reads 1 as true and every other byte as false;
// [Decode] does the same (so a file with a Bool byte 2 decodes and
// re-encodes with byte 0), and [StrictBool] rejects such bytes.
//
// # Security
//
// The decoder treats its input as hostile. It never panics, and fails with
// a [*SyntaxError] naming the byte offset for a truncated value, an unknown
// type code, a string without NUL terminator or with invalid UTF-8. Limits:
//
//   - nesting depth: at most [DefaultMaxDepth] (64) levels, the root object
//     being level 1, or [WithMaxDecodeDepth]; this is a true depth,
//     unlike the reference's counter, which [WithContainerBudget]
//     reproduces when parity matters ([ReferenceMaxDepth] = 16);
//   - memory: a first pass checks the whole object without allocating and
//     counts what it holds; the second allocates exactly that, in a few
//     blocks. Every value consumes at least one input byte, so this is at
//     most 128 bytes per input byte plus a small constant (about 55 for
//     the worst shapes, arrays of empty arrays; a typical document takes
//     about 5). Malformed input is rejected before the document is built.
//     String values share one block holding all string bytes;
//   - time: linear in the input, plus a scan of at most 255 keys per
//     property for duplicate detection. [Unmarshal] also keeps the offset
//     of every repeated entry (at most one int per 9 input bytes).
//
// [Unmarshal] checks the whole document before it writes into the target,
// so malformed data leaves the target untouched; a value that does not fit
// its Go type stops it with an [*UnmarshalTypeError], leaving the fields
// set before it (encoding/json would carry on with the next ones). What it
// allocates is what the
// target needs: a slice gets at most 255 elements, each taking at least one
// input byte.
//
// The typed-JSON parser enforces the same depth and count limits.
package sd
