// Package strings reads and writes BPX string sections (section type 0xFF,
// spec rev 2 §10.1).
//
// A string section is a run of NUL-terminated UTF-8 strings placed back to
// back. Other structures refer to a string by its byte offset in the
// uncompressed section (a "string pointer"). [Table] resolves such offsets;
// [Builder] appends strings and hands out their offsets, storing each
// distinct string once (the reference writer stores duplicates; readers do
// not care).
//
// The package works on byte slices and does not depend on the container
// package bpx or on any compression library; its errors match
// bpx.ErrFormat and bpx.ErrTooLarge through the leaf package bpxerr.
//
// Callers usually import this package under another name, for example
//
//	import bpxstrings "github.com/gobpx/bpx/strings"
//
// # Security
//
// A [Table] treats its section as hostile input. [Table.Get] never panics:
// an offset at or past the end of the section, a string with no NUL before
// the end of the section, and bytes that are not valid UTF-8 are reported as
// a [*Error] naming the offset, matching [ErrOutOfRange], [ErrUnterminated]
// or [ErrInvalidUTF8] and bpx.ErrFormat with errors.Is. A lookup costs time
// proportional to the length of the string found, not to the size of the
// section, and allocates nothing. Lookups whose strings overlap (pointers to
// every byte of one long string) would cost the square of the section: once
// lookups have read the section twice over, the Table indexes it in one
// pass, at most 4 bytes per byte of the section, and answers each later
// lookup in time logarithmic in the section. A Table keeps a reference to
// the section bytes and never copies them.
//
// [Builder.Add] refuses strings that cannot be stored faithfully (a NUL
// byte or invalid UTF-8) and a section that would grow past [MaxSize].
package strings
