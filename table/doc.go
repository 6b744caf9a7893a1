// Package table reads and writes BPX table sections (section type 0xFD,
// bpx.SectionTypeTable): a typed, fixed-width record table whose table
// and column names live in a string section (type 0xFF).
//
// EXPERIMENTAL: the table section is not part of spec rev 2. It was added
// to the reference implementation (the Rust crate bpx, BPXFormat/bpx-rs)
// in 2025 and has not been released; its layout and API may still change,
// and so may this package.
//
// # Layout
//
// All integers and floats are little-endian. A section is
//
//	header   8 bytes  u32 table name (string pointer), u16 column count, 2 zero bytes
//	columns  8 bytes each: u32 column name (string pointer), u8 type code,
//	                       u16 length (at bytes 5-6), 1 zero byte
//	rows     stride bytes each, from offset 8 + 8 × column count to the end
//
// The type codes are those of [Type]: 0 Null (0 bytes), 1 Bool (1 byte),
// 2 to 5 Uint8 to Uint64, 6 to 9 Int8 to Int64, 10 Float32, 11 Float64
// and 12 Varchar (1 byte). A column takes size × length bytes of a row,
// in column order with no alignment: a length of 1 is a scalar, any
// other length an array of that many elements (0 is an empty array), and
// a Varchar column of length n is a string of up to n bytes of UTF-8
// stored in the row itself, padded with NUL bytes. Null columns take no
// bytes whatever their length.
//
// The row size is the sum of the column sizes. The stride is the next
// power of two above it (the row size plus one when the row size is
// itself a power of two, so that at least one byte follows the values).
// The byte right after the values, at [row size] in the row, is the free
// flag: 1 marks a free (deleted) row, any other value a live one; the
// bytes after it up to the stride are padding. There is no row count: it
// is the size of the row area divided by the stride.
//
// # Reference behaviour followed, and where this package differs
//
// Sources: src/table/{header,column,row,core}.rs of bpx-rs at the 2025
// commits 104b5cc942351a68d510cc7977aa17fb0a459f07 and
// 28a61f4aac88dc06ae32890456d394dc7aecfc92 and later, and src/core/header.rs
// at d28ad05b9761b67a76e0da8706be90b4d47d8700 (section type 0xFD). The
// reference:
//
//   - reads a Bool byte other than 0 as true and writes 1 or 0;
//   - reads a Varchar cell as UTF-8 with the NUL bytes at both ends
//     trimmed (later commits; 104b5cc kept them), and writes a longer
//     string cut at the cell size, even inside a UTF-8 sequence;
//   - treats only the flag byte 1 as free, and writes 1 or 0;
//   - writes new rows zeroed, so padding and unused Varchar bytes are 0;
//   - counts rows as (section size − header size) / stride, silently
//     ignoring a trailing partial row, and underflows when the section is
//     shorter than its column table;
//   - creates table sections xz-compressed with a CRC32 check, with names
//     in a strings section chosen by the caller (the first 0xFF section
//     for containers it creates itself);
//   - never checks the padding bytes, and cannot create a row for a table
//     whose row size is 0 (it panics).
//
// This package reads and writes the same bytes: a [Builder] given the
// same columns and values produces the section the reference writes. It
// differs where the reference loses data or crashes: a trailing partial
// row, and a column table longer than the section, are errors
// ([ErrTruncated]); [Builder.Append] refuses a string longer than its
// column ([ErrRange]) or that would not read back the same (invalid UTF-8,
// a NUL at either end) instead of cutting it; a table of row size 0 is
// read and written with a stride of 1 (the flag byte alone). The
// application BPXFormat/box-edit-core (2026) reads and writes scalar cells
// only, through free functions; this package also exposes arrays.
//
// # Use
//
// [Decode] parses an uncompressed section with the names resolved through
// a strings.Table; the [Table] it returns gives its columns, its live rows
// (free rows are skipped) and typed access to their cells by column name,
// [Row.Unmarshal] into a struct with `table:"name"` tags, and JSON with
// [Table.WriteJSON]. [NewBuilder] writes a section, adding its names to a
// strings.Builder. The package works on byte slices and does not depend on
// the container package bpx or on any compression library; its errors
// match bpx.ErrFormat and bpx.ErrTooLarge through the leaf package bpxerr.
//
// # Security
//
// [Decode] treats the section as hostile input and never panics. It checks
// the column count against the section size before it allocates, checks
// every type code and name, and checks that the rows fill the rest of the
// section exactly. Limits:
//
//   - columns: at most 65535 (the u16 count), and no more than the
//     section holds;
//   - row size: at most [MaxRowSize] bytes (1 MiB), so a stride is at
//     most 2 MiB; a larger table fails with [ErrRowTooLarge], matching
//     bpx.ErrTooLarge;
//   - memory: the [Table] keeps a reference to the section and never
//     copies it; it allocates about 100 bytes per column (the column
//     list and a name index), that is at most about 13 bytes per byte of
//     the column table, and nothing per row: a cell is decoded when read;
//   - time: linear in the section. Decode reads every free flag to count
//     the live rows and checks the UTF-8 of every live Varchar cell, so
//     that reading a cell of a decoded table never fails for bad input.
//
// Errors for bad input are [*Error] values naming the byte offset in the
// section.
package table
