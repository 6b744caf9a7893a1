// Package blk reads and writes BLK, the binary "DataBlock" format of the
// Dagor engine (War Thunder, Enlisted), following the engine's own reader
// and writer (DagorEngine prog/engine/ioSys/dataBlock) where the popular
// wt_blk decoder deviates.
//
// A [Block] has a name, ordered parameters (name and typed [Value]) and
// ordered sub-blocks; names may repeat. [Decode] and [Decoder.Decode] read
// every binary kind: FAT (1), FAT_ZST (2), SLIM (3), SLIM_ZST (4),
// SLIM_ZST_DICT (5) with a shared [NameMap] and zstd dictionaries, and the
// legacy BBF3 ("\0BBF", with its zlib variant "\0BBz"). [Encoder] writes
// the kinds 1 to 5 with the engine's layout. [ParseText] reads the whole
// text syntax of the engine's parser (arrays, includes, and the
// "@override:"/"@delete:"/"@clone-last:" directives, kept as data) and
// [WriteText] writes it back; [WriteJSON] writes the JSON of wt_blk
// (with its duplicate-merging mode), and [WriteTypedJSON] / [ParseTypedJSON] a
// lossless typed JSON. [ToSD] and [FromSD] map a tree to BPXSD and back
// without loss (a flat block list, lists chunked beyond BPXSD's 255
// entries), and [WriteBPX] / [ReadBPX] store it in a BPX container.
//
// Deviations from wt_blk, all as the engine does it: the names size is
// present only when the names count is not 0; SLIM files may carry local
// names after the shared ones; untagged SLIM strings are read from the
// file's payload; type 0x0D (ipoint4) exists; colors are stored B, G, R, A.
// BBF3 is read as the engine's blk_readBBF3.cpp reads it: a bool is bit 31
// of its param header and a color the u32 r<<24 | g<<16 | b<<8 | a.
// kotiq's BBF3 writer, which made the sample section_bbf.blk, inverts the
// bool and stores the color bytes as r, g, b, a, so the engine and this
// package read that sample's "bool" as false and its color as 4, 3, 2, 1.
//
// # Security
//
// Decoding treats its input as hostile. It does not panic on any input,
// and every malformed input gives an error matching [ErrFormat] (a
// [*FormatError] naming the byte offset) or another sentinel of this
// package; each of them also matches bpx.ErrFormat, bpx.ErrTooLarge or
// bpx.ErrUnsupported, like the errors of the other decoders of the
// module. No count is trusted before the bytes it needs are there, so a
// decoded tree takes at most about 40 bytes of memory per input byte;
// decompressed data is bounded by [Decoder.MaxSize] (default
// [DefaultMaxSize], 256 MiB). Limits:
//   - ULEB128 integers: at most 5 bytes, value within 32 bits;
//   - names section: at most [MaxNamesSize] (256 MiB), as in the engine;
//   - params and sub-blocks per block: at most 65535 (the engine's u16);
//   - block nesting: at most [MaxDepth] levels;
//   - every block but the root must be claimed by exactly one parent and
//     be reachable from the root; every param must belong to a block;
//   - BBF3: at most 2 Mi names and 64 Mi strings, as in the engine.
//
// [ParseText] keeps the same limits on params and sub-blocks per block
// (an array counts one param per value) and on nesting; it reads the text
// once, without backtracking, and the tree it builds takes at most about
// 80 bytes of memory per byte of text (an empty array value, one byte,
// is one param); building it allocates at most about 320 bytes per byte
// in all, as slices grow by copying.
//
// Trailing bytes after the block map, and after the FAT_ZST frame (game
// files carry 256 of them), are ignored, as by the engine.
package blk
